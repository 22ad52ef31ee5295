// Recent calls, kept in chrome.storage.session so a call that finishes while the popup is closed is there
// when it opens again. Writes are chained so concurrent calls never overwrite each other's entries.

const KEY = "history";
const LIMIT = 100;
let chain = Promise.resolve();

function update(fn) {
  chain = chain.then(async () => {
    const { [KEY]: entries = [] } = await chrome.storage.session.get(KEY);
    await chrome.storage.session.set({ [KEY]: fn(entries).slice(0, LIMIT) });
  });
  return chain;
}

export function recordStart(entry) {
  return update((entries) => [{ ...entry, status: "running" }, ...entries.filter((e) => e.id !== entry.id)]);
}

export function recordEnd(id, fields) {
  return update((entries) => entries.map((e) => (e.id === id ? { ...e, ...fields } : e)));
}

export async function list() {
  await chain;
  const { [KEY]: entries = [] } = await chrome.storage.session.get(KEY);
  return entries;
}
