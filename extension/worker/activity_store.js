// The agents' activity log across a service-worker restart (contract §9): Python decides the entries and
// their bound and emits the whole bounded list each time it changes; the worker keeps it in
// chrome.storage.session under one key (one write, so a failed write leaves the last good list whole) and
// hands it back to a new Python document. Only the newest list is written; an older one never overwrites it.
const KEY = "agents-activity";

let latest = null;
let writing = null;

export function storeActivity(entries) {
  latest = entries;
  writing ??= (async () => {
    while (latest) {
      const next = latest;
      latest = null;
      try {
        await chrome.storage.session.set({ [KEY]: next });
      } catch (e) {
        console.warn("tabgate: activity log not stored:", e.message);
      }
    }
    writing = null;
  })();
}

export async function storedActivity() {
  try {
    const { [KEY]: entries = [] } = await chrome.storage.session.get(KEY);
    return Array.isArray(entries) ? entries : [];
  } catch (e) {
    console.warn("tabgate: activity log not read:", e.message);
    return [];
  }
}
