// Recent calls, kept in chrome.storage.session so a call that finishes while the popup is closed is there
// when it opens again. One storage key per call, plus a small index (id, times, status, size of each) written
// in the same storage call: the worker keeps a running size tally without reading entries back, and a new
// worker finds the calls the stopped one left running. Python shortens what is stored (record.answer ≤
// 256 KiB); this module only bounds the whole (entries and bytes), and every write happens behind the answer.

const PREFIX = "history:";
const INDEX_KEY = "history-index";
export const MAX_ENTRIES = 100;
export const MAX_BYTES = 5 * 1024 * 1024;
// A call's own arguments are kept so the popup can fill its form again; past this size only their size is.
const MAX_ITEM_BYTES = 64 * 1024;
export const INTERRUPTED_NOTE =
  "The service worker stopped while this call ran, so its outcome is unknown: it may have finished or not. " +
  "Check what the tool does before running it again.";

let index = null; // [{id, startedAt, changedAt, status, bytes}], newest first; loaded once per worker
let totalBytes = 0;
const unfinished = new Map(); // id → entry for calls this worker started and has not recorded the end of
let queue = Promise.resolve();
let listeners = { changed: () => {}, removed: () => {} };

const encoder = new TextEncoder();
const sizeOf = (entry) => encoder.encode(JSON.stringify(entry)).length + PREFIX.length + entry.id.length;

function enqueue(fn) {
  const run = queue.then(fn);
  queue = run.catch((e) => console.error("tabgate: history", e));
  return run;
}

// Loads the index and marks what a stopped worker left running as interrupted. Called once when the worker
// starts; every other operation queues behind it.
export function start({ changed, removed }) {
  listeners = { changed, removed };
  return enqueue(async () => {
    const { [INDEX_KEY]: stored = [] } = await chrome.storage.session.get(INDEX_KEY);
    index = stored;
    totalBytes = index.reduce((sum, m) => sum + m.bytes, 0);
    const left = index.filter((m) => m.status === "running").map((m) => m.id);
    if (!left.length) return;
    const got = await chrome.storage.session.get(left.map((id) => PREFIX + id));
    const finishedAt = Date.now();
    for (const id of left) {
      const entry = got[PREFIX + id];
      if (entry) await put({ ...entry, status: "interrupted", finishedAt, note: INTERRUPTED_NOTE });
      else await drop([id]);
    }
  });
}

function storedItem(item) {
  const bytes = encoder.encode(JSON.stringify(item ?? null)).length;
  if (bytes <= MAX_ITEM_BYTES) return { item };
  const { type, name, call_id } = item;
  return { item: { type, name, call_id }, itemNotStored: `The call's arguments (${bytes} bytes) were too large to keep.` };
}

export function recordStart({ id, name, item, startedAt }) {
  const entry = { id, name, status: "running", startedAt, ...storedItem(item) };
  unfinished.set(id, entry);
  return enqueue(() => put(entry));
}

// `record` is Python's: {status, answer, truncated?}. The answer it holds is already shortened.
export function recordEnd(id, record, finishedAt = Date.now()) {
  const entry = unfinished.get(id);
  unfinished.delete(id);
  if (!entry) return queue;
  const { status, answer, truncated } = record;
  const done = { ...entry, status, finishedAt, answer, ...(truncated ? { truncated } : {}) };
  return enqueue(async () => {
    if (await put(done)) return;
    // The storage refused the entry (quota): keep the outcome without the answer, or nothing at all, but never
    // leave it running.
    const { answer: _, truncated: __, ...small } = done;
    if (await put({ ...small, note: "The answer was not kept: the extension's session storage is full." })) return;
    await drop([id]);
  });
}

// Writes one entry and the index in one storage call, evicting the oldest entries past the bounds first.
// Answers whether the write happened.
async function put(entry) {
  entry = { ...entry, changedAt: Date.now() };
  const meta = { id: entry.id, startedAt: entry.startedAt, changedAt: entry.changedAt, status: entry.status, bytes: sizeOf(entry) };
  const old = index.find((m) => m.id === entry.id);
  let next = old ? index.map((m) => (m === old ? meta : m)) : [meta, ...index];
  let bytes = totalBytes - (old?.bytes ?? 0) + meta.bytes;
  const evicted = [];
  while (next.length > 1 && (next.length > MAX_ENTRIES || bytes > MAX_BYTES)) {
    const oldest = next[next.length - 1] === meta ? next.splice(-2, 1)[0] : next.pop();
    bytes -= oldest.bytes;
    evicted.push(oldest.id);
  }
  if (evicted.length) await drop(evicted);
  next = next.filter((m) => !evicted.includes(m.id));
  try {
    await chrome.storage.session.set({ [PREFIX + entry.id]: entry, [INDEX_KEY]: next });
  } catch (e) {
    console.warn("tabgate: history entry not stored", entry.id, e.message);
    return false;
  }
  index = next;
  totalBytes = bytes;
  listeners.changed(entry);
  return true;
}

async function drop(ids) {
  if (!ids.length) return;
  const gone = new Set(ids);
  const next = index.filter((m) => !gone.has(m.id));
  // Removing first frees the space the smaller index needs.
  await chrome.storage.session.remove(ids.map((id) => PREFIX + id));
  await chrome.storage.session.set({ [INDEX_KEY]: next });
  index = next;
  totalBytes = index.reduce((sum, m) => sum + m.bytes, 0);
  listeners.removed(ids);
}

// Entries newest first: all of them, the `limit` newest, or those changed at or after `since` (ms).
export function list({ since, limit } = {}) {
  return enqueue(async () => {
    let metas = typeof since === "number" ? index.filter((m) => m.changedAt >= since) : index;
    if (typeof limit === "number") metas = metas.slice(0, Math.max(0, limit));
    if (!metas.length) return [];
    const got = await chrome.storage.session.get(metas.map((m) => PREFIX + m.id));
    return metas.map((m) => got[PREFIX + m.id]).filter(Boolean);
  });
}

export function clear() {
  return enqueue(async () => {
    // Calls still running are recorded again when they end.
    const ids = index.map((m) => m.id);
    await drop(ids);
    return { cleared: ids.length };
  });
}
