// A Chrome notification for each new pending approval while no popup page is open (contract §9). Python
// emits the approvals as they change, each with its notification's words; the worker shows, for each one it
// has not seen pending before, that notification, and clears it once the approval is no longer pending
// (answered, denied, unanswered or withdrawn). Clicking it opens the popup, or a window with the popup page.
const PREFIX = "approval:";
const ICON = "icons/notice-128.png";
const seen = new Set(); // approval ids this worker has seen pending
let queue = Promise.resolve();

async function popupOpen() {
  const popup = chrome.runtime.getURL("ui/popup.html");
  const contexts = await chrome.runtime.getContexts({});
  return contexts.some((c) => typeof c.documentUrl === "string" && c.documentUrl.startsWith(popup));
}

async function update(pending) {
  const ids = new Set(pending.map((a) => a.id));
  const shown = await chrome.notifications.getAll();
  for (const key of Object.keys(shown)) {
    if (key.startsWith(PREFIX) && !ids.has(key.slice(PREFIX.length))) await chrome.notifications.clear(key);
  }
  for (const id of seen) if (!ids.has(id)) seen.delete(id);
  const fresh = pending.filter((a) => !seen.has(a.id));
  for (const approval of fresh) seen.add(approval.id);
  if (!fresh.length || (await popupOpen())) return;
  for (const approval of fresh) {
    await chrome.notifications.create(PREFIX + approval.id, {
      type: "basic",
      iconUrl: chrome.runtime.getURL(ICON),
      requireInteraction: true,
      priority: 2,
      ...approval.notice, // title, message and contextMessage, worded by Python
    });
  }
}

// Python's `approval` event: `{pending:[approval…], withdrawn:[…]}`.
export function approvalsChanged(event) {
  const pending = Array.isArray(event.pending) ? event.pending : [];
  queue = queue.then(() => update(pending)).catch((e) => console.warn("tabgate: approval notification:", e.message));
}

async function openApproval(notificationId) {
  if (!notificationId.startsWith(PREFIX)) return;
  try {
    await chrome.action.openPopup();
  } catch {
    const id = encodeURIComponent(notificationId.slice(PREFIX.length));
    await chrome.windows.create({ url: chrome.runtime.getURL(`ui/popup.html?approval=${id}`), type: "popup", width: 420, height: 640 });
  }
}

// Registered when the worker starts (a top-level listener), so a click wakes a stopped worker.
export function listenForClicks() {
  chrome.notifications.onClicked.addListener((notificationId) => {
    openApproval(notificationId).catch((e) => console.warn("tabgate: opening the approval:", e.message));
  });
}
