// The agents' activity log across a service-worker restart (contract §9): Python decides the entries and
// their bound. It sends each new entry with how many entries the log keeps (`keep`), and the whole list only
// after a new Python document has loaded the stored one; the worker applies each change to the list it
// keeps in chrome.storage.session under one key (one write, so a failed write leaves the last good list
// whole) and hands it back to a new Python document. Changes made while a write runs go in the next one.
const KEY = "agents-activity";

let stored = null; // the list as written or about to be; read back from storage after a restart
const changes = [];
let writing = null;

export function storeActivity(change) {
  changes.push(change);
  writing ??= (async () => {
    stored ??= await storedActivity();
    while (changes.length) {
      for (const { entries, entry, keep } of changes.splice(0)) {
        stored = (entries ?? [entry, ...stored]).slice(0, keep);
      }
      try {
        await chrome.storage.session.set({ [KEY]: stored });
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
