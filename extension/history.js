// Recent calls, kept in chrome.storage.session so a call that finishes while the popup is closed is there
// when it opens again. One storage key per call keeps every write small, whatever the history holds, and
// writes happen behind the call so recording never delays an answer.

const PREFIX = "history:";
const LIMIT = 100;
let ids = null; // newest first; loaded from storage by a (re)started worker
const started = new Map(); // entries this worker started, so finishing one needs no read
let loading = null;
let writes = Promise.resolve();

function load() {
  loading ??= chrome.storage.session.get(null).then((all) => {
    ids = Object.entries(all)
      .filter(([key]) => key.startsWith(PREFIX))
      .sort(([, a], [, b]) => b.startedAt - a.startedAt)
      .map(([key]) => key.slice(PREFIX.length));
  });
  return loading;
}

function write(fn) {
  writes = writes.then(load).then(fn).catch((e) => console.error("tabgate: history", e));
  return writes;
}

export function recordStart(entry) {
  return write(async () => {
    ids = [entry.id, ...ids.filter((id) => id !== entry.id)];
    const dropped = ids.splice(LIMIT);
    const running = { ...entry, status: "running" };
    started.set(entry.id, running);
    await chrome.storage.session.set({ [PREFIX + entry.id]: running });
    if (dropped.length) await chrome.storage.session.remove(dropped.map((id) => PREFIX + id));
  });
}

export function recordEnd(id, fields) {
  return write(async () => {
    const key = PREFIX + id;
    const entry = started.get(id) ?? (await chrome.storage.session.get(key))[key];
    started.delete(id);
    if (entry) await chrome.storage.session.set({ [key]: { ...entry, ...fields } });
  });
}

export async function list() {
  await writes;
  await load();
  const got = await chrome.storage.session.get(ids.map((id) => PREFIX + id));
  return ids.map((id) => got[PREFIX + id]).filter(Boolean);
}
