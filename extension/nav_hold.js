// Holding an agent's loads (contract §8.2): on the tabs Python names (the agents' tabs, never the person's
// own), Chrome's debugger pauses every document request before it leaves the browser (Fetch at the request
// stage, so each redirect hop too). This module relays each paused request to Python with what the tab shows,
// and applies the answer: continue, or fail it. It decides nothing (core/browser/nav_guard.py does).
const DECISION_MS = 10000; // a request Python has not decided by then is failed: never held for ever
const FAIL_SAFE = { continue: false, errorReason: "Aborted" };

export const HOLD_DOCUMENTS = ["Fetch.enable", { patterns: [{ resourceType: "Document", requestStage: "Request" }] }];

let decide = null; // facts → Promise<{continue, errorReason?}>: the service worker's call into Python

export function setNavDecider(fn) {
  decide = fn;
}

function withinLimit(promise) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(FAIL_SAFE), DECISION_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// One paused request of tab `tabId` (its session's, or a frame's): Python's answer, applied.
export async function holdPaused(send, tabId, sessionId, p, top) {
  let verdict = FAIL_SAFE;
  try {
    const tab = await chrome.tabs.get(tabId);
    const facts = {
      tabId, url: p.request.url, method: p.request.method, body: p.request.hasPostData === true, top,
      redirect: p.redirectedRequestId !== undefined, shown: tab.url ?? "", title: tab.title ?? "",
    };
    verdict = decide ? await withinLimit(decide(facts)) : FAIL_SAFE;
  } catch {
    // The tab closed or Python could not answer: the request does not go out.
  }
  const [method, params] = verdict?.continue === true
    ? ["Fetch.continueRequest", { requestId: p.requestId }]
    : ["Fetch.failRequest", { requestId: p.requestId, errorReason: verdict?.errorReason ?? "Aborted" }];
  // The load may be gone already (the tab navigated elsewhere, closed): nothing left to apply.
  await send(tabId, sessionId, method, params).catch(() => {});
}
