// Holding an agent's loads (contract §8.2): on the tabs Python names (the agents' tabs, never the person's
// own), Chrome's debugger pauses every document request before it leaves the browser (Fetch at the request
// stage, so each redirect hop too). This module relays each paused request to Python with what the tab shows,
// and applies the answer: continue, or fail it. A page restored from the back/forward cache sends no request
// (Fetch never sees it): its commit is relayed the same way, and a stop takes the tab back to the entry it
// left. It decides nothing (core/consent/nav_guard.py does).
import { WorkerTiming } from "../worker_timings.js";
import { DebuggerSetup } from "../debugger_setup.js";

const DECISION_MS = WorkerTiming.NAV_DECISION_LIMIT_MS; // a request Python has not decided by then is failed: never held for ever
const FAIL_SAFE = DebuggerSetup.UNDECIDED_LOAD;

const returning = new Map(); // tabId → the URL a stopped restore sends the tab back to
const restoring = new Map(); // tabId → Promise: whether Python stopped its last restore (the tab taken back)
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

// Python's answer on one load of tab `tabId` (FAIL_SAFE when the tab closed or Python could not answer).
async function verdictOn(tabId, facts) {
  try {
    const tab = await chrome.tabs.get(tabId);
    const told = { tabId, shown: tab.url ?? "", title: tab.title ?? "", ...facts };
    return decide ? await withinLimit(decide(told)) : FAIL_SAFE;
  } catch {
    return FAIL_SAFE;
  }
}

// One paused request of tab `tabId` (its session's, or a frame's): Python's answer, applied.
export async function holdPaused(send, tabId, sessionId, p, top) {
  const verdict = await verdictOn(tabId, {
    url: p.request.url, method: p.request.method, body: p.request.hasPostData === true, top,
    redirect: p.redirectedRequestId !== undefined,
  });
  const [method, params] = verdict?.continue === true
    ? ["Fetch.continueRequest", { requestId: p.requestId }]
    : ["Fetch.failRequest", { requestId: p.requestId, errorReason: verdict?.errorReason ?? FAIL_SAFE.errorReason }];
  // The load may be gone already (the tab navigated elsewhere, closed): nothing left to apply.
  await send(tabId, sessionId, method, params).catch(() => {});
}

// Tab `tabId` committed `url` from the back/forward cache, leaving `left` (what it showed before): unless Python
// lets it stay, the tab goes back to the history entry it left (another entry of that URL next to it), or to
// about:blank when there is none. Registered at once, so that a history step waits for it (restoreStopped).
export function heldRestore(send, tabId, url, left) {
  if (returning.get(tabId) === url) {
    returning.delete(tabId); // the tab coming back where a stop sent it (itself often a restore)
    return;
  }
  const decided = decideRestore(send, tabId, url, left);
  restoring.set(tabId, decided);
  decided.finally(() => {
    if (restoring.get(tabId) === decided) restoring.delete(tabId);
  });
}

// Whether the restore tab `tabId` made last (its commit comes before its "complete") was stopped; the tab is
// then back where it was.
export function restoreStopped(tabId) {
  return restoring.get(tabId) ?? Promise.resolve(false);
}

async function decideRestore(send, tabId, url, left) {
  const verdict = await verdictOn(tabId, { url, top: true, restored: true, shown: left });
  if (verdict?.continue === true) return false;
  try {
    const { currentIndex, entries } = await send(tabId, null, "Page.getNavigationHistory", {});
    const back = [entries[currentIndex + 1], entries[currentIndex - 1]].find((e) => e?.url === left);
    if (back) returning.set(tabId, left);
    const shows = untilShows(tabId, back ? left : "about:blank");
    await (back
      ? send(tabId, null, "Page.navigateToHistoryEntry", { entryId: back.id })
      : send(tabId, null, "Page.navigate", { url: "about:blank" }));
    await shows;
  } catch {
    // The tab closed or detached meanwhile: nothing is shown to take back.
  }
  return true;
}

// Resolves once tab `tabId` shows `url` (or after DECISION_MS: the step's answer is not held for ever).
function untilShows(tabId, url) {
  return new Promise((resolve) => {
    const done = () => {
      chrome.tabs.onUpdated.removeListener(seen);
      clearTimeout(timer);
      resolve();
    };
    const seen = (id, change) => {
      if (id === tabId && change.url === url) done();
    };
    const timer = setTimeout(done, DECISION_MS);
    chrome.tabs.onUpdated.addListener(seen);
  });
}
