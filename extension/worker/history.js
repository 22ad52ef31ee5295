// Recent calls, kept in chrome.storage.session so a call that finishes while the popup is closed is there
// when it opens again. One storage key per call, plus a small index (id, times, status, size of each) written
// with them: the worker keeps a running size tally without reading entries back, and a new worker finds the
// calls the stopped one left running. Python decides what is kept (core/records/history_book.py: the bounds, which
// entries are evicted, a call's arguments too large to keep, what a refused write keeps, what a stopped worker
// left) and shortens each answer (record.answer); this module does the storage I/O. Changes are made in
// memory at once (and pushed to the popup), told to Python, and written shortly after in one storage call per
// batch, so recording stays off the answers' path.
import { MessageType } from "../message_types.js";
import { WorkerTiming } from "../worker_timings.js";

const PREFIX = "history:";
const INDEX_KEY = "history-index";
// Other changes within this time share one storage write (the ends of a burst of calls).
const WRITE_DELAY_MS = WorkerTiming.HISTORY_WRITE_DELAY_MS;

let index = []; // [{id, startedAt, changedAt, status, bytes}], newest first
let totalBytes = 0;
const pending = new Map(); // id → entry changed in memory and not yet written
const unfinished = new Map(); // id → entry of a call this worker started and has not recorded the end of
let loaded = null;
let writing = Promise.resolve();
let writeTimer = null;
let listeners = { changed: () => {}, removed: () => {} };
let python = null;
let undecided = []; // metas of the changes Python has not been told yet, oldest first
let decideTimer = null;
let startTimer = null; // the calls started since the last write are written when it fires
let deciding = Promise.resolve(); // Python's latest decision, applied: reads wait for it, so none exceeds the bounds

const encoder = new TextEncoder();
const bytesOf = (value) => encoder.encode(JSON.stringify(value ?? null)).length;

// Loads the index; Python says which entries a stopped worker left running (they become interrupted, with
// its note) and what is past the bounds. Called once when the worker starts; everything else waits for it.
// `on.python`: the PythonConnection that answers `history/*`.
export function start(on) {
  listeners = on;
  python = on.python;
  loaded = (async () => {
    const { [INDEX_KEY]: stored = [] } = await chrome.storage.session.get(INDEX_KEY);
    index = stored;
    totalBytes = index.reduce((sum, m) => sum + m.bytes, 0);
    const decided = await python.call({ type: MessageType.HISTORY_LOAD, index, fresh: true });
    const got = decided.interrupted.length ? await chrome.storage.session.get(decided.interrupted.map((id) => PREFIX + id)) : {};
    const finishedAt = Date.now();
    for (const id of decided.interrupted) {
      const entry = got[PREFIX + id];
      if (entry) change({ ...entry, status: decided.status, finishedAt, note: decided.note });
      else remove([id]);
    }
    evict(decided.evict);
  })().catch((e) => console.error("tabgate: history could not be loaded", e));
  return loaded;
}

// A new Python document learns the index from this worker (nothing in it was left by a stopped worker).
export function tellPython() {
  loaded?.then(() => python.notify({ type: MessageType.HISTORY_LOAD, index, fresh: false }));
}

// `caller`: the agent that made the call through the gateway (absent for the person's own calls).
// `note`: said with the entry (a task the host resumed after a restart).
export function recordStart({ id, name, item, startedAt, caller, note }) {
  const entry = { id, name, status: "running", startedAt, ...(caller ? { caller: String(caller) } : {}), ...(note ? { note } : {}), item };
  unfinished.set(id, entry);
  loaded.then(() => change(entry));
}

// `record` is Python's: {status, answer?, truncated?}: `status` is the call's outcome, the answer it holds is
// already shortened; without one, the answer that fitted is `relayed` (the one the caller got).
export function recordEnd(id, record, relayed) {
  const entry = unfinished.get(id);
  unfinished.delete(id);
  if (!entry) return;
  const finishedAt = Date.now();
  const { status, answer = relayed, truncated } = record;
  loaded.then(() => change({ ...entry, status, finishedAt, answer, ...(truncated ? { truncated } : {}) }));
}

// One entry changed: in memory now, in storage with the next write; Python, shortly after, says what is
// evicted and whether the call's arguments are too large to keep.
function change(entry) {
  entry = { ...entry, changedAt: Date.now() };
  const meta = { id: entry.id, startedAt: entry.startedAt, changedAt: entry.changedAt, status: entry.status };
  meta.bytes = bytesOf(entry) + PREFIX.length + entry.id.length;
  const at = index.findIndex((m) => m.id === entry.id);
  if (at >= 0) {
    totalBytes -= index[at].bytes;
    index[at] = meta;
  } else index.unshift(meta);
  totalBytes += meta.bytes;
  pending.set(entry.id, entry);
  listeners.changed(entry);
  undecided.push({ ...meta, itemBytes: bytesOf(entry.item) });
  // A start is written once Python has said what of its arguments is kept, WRITE_DELAY_MS after it: a call
  // that ends sooner is decided and written once, start and end together, and neither lands on its answer's
  // path (~0.5–0.9 ms a call, docs/benchmarks.md). A new worker marks as interrupted what reached the storage.
  if (entry.status === "running") startTimer ??= setTimeout(writeStarts, WRITE_DELAY_MS);
  else {
    scheduleWrite();
    decideTimer ??= setTimeout(decide, WRITE_DELAY_MS);
  }
}

function writeStarts() {
  startTimer = null;
  return decide().then(writeNow);
}

// The changes since the last time go to Python together (like the writes, one call per burst), off the
// answers' path; its answer is applied: evictions, and arguments too large to keep.
function decide() {
  clearTimeout(decideTimer);
  decideTimer = null;
  const metas = undecided.splice(0);
  if (!metas.length) return deciding;
  const asked = python.call({ type: MessageType.HISTORY_CHANGED, metas });
  deciding = deciding
    .then(() => asked)
    .then((decided) => {
      evict(decided.evict);
      return Promise.all(Object.entries(decided.dropItems).map(([id, note]) => dropItem(id, note)));
    })
    .catch((e) => console.warn("tabgate: history bounds not applied", e));
  return deciding;
}

// The entry as it is now (pending or stored) without its call's arguments, with Python's note instead.
async function dropItem(id, note) {
  const [entry] = await entriesFor(index.filter((m) => m.id === id));
  if (!entry?.item) return;
  const { type, name, call_id } = entry.item;
  change({ ...entry, item: { type, name, call_id }, itemNotStored: note });
}

// Entries Python evicted: out of the index now, their keys go with the next write.
function evict(ids) {
  if (!ids?.length) return;
  const gone = new Set(ids);
  index = index.filter((m) => !gone.has(m.id));
  totalBytes = index.reduce((sum, m) => sum + m.bytes, 0);
  forget(ids);
  scheduleWrite();
}

// Entries taken out here (cleared, or lost from the storage): Python hears it too.
function remove(ids) {
  const gone = new Set(ids);
  undecided = undecided.filter((m) => !gone.has(m.id));
  evict(ids);
  python.notify({ type: MessageType.HISTORY_REMOVED, ids });
}

// Ids already out of the index: their keys go with the next write.
const removing = new Set();
function forget(ids) {
  for (const id of ids) {
    pending.delete(id);
    removing.add(id);
  }
  listeners.removed(ids);
}

function scheduleWrite() {
  writeTimer ??= setTimeout(writeNow, WRITE_DELAY_MS);
}

function writeNow() {
  clearTimeout(writeTimer);
  writeTimer = null;
  writing = writing.then(write).catch((e) => console.error("tabgate: history", e));
  return writing;
}

// One storage call for everything changed since the last write. When the storage refuses it (quota), each
// entry is tried alone, then Python says what it keeps (without its answer, or nothing): nothing is ever left
// `running` for lack of room.
async function write() {
  if (removing.size) {
    const ids = [...removing];
    removing.clear();
    // Removing first frees the room the new entries need.
    await chrome.storage.session.remove(ids.map((id) => PREFIX + id));
  }
  const batch = new Map(pending);
  if (!batch.size) return chrome.storage.session.set({ [INDEX_KEY]: index });
  if (await store([...batch.values()])) return settle(batch);
  for (const entry of batch.values()) {
    if (pending.get(entry.id) !== entry) continue; // changed again meanwhile: the next write has it
    if (await store([entry])) {
      settle(new Map([[entry.id, entry]]));
      continue;
    }
    const decided = await python.call({ type: MessageType.HISTORY_REFUSED, id: entry.id, hasAnswer: entry.answer !== undefined });
    if (decided.keep === "withoutAnswer") {
      const { answer: _, truncated: __, ...small } = entry;
      change({ ...small, note: decided.note });
    } else {
      console.warn("tabgate: history entry dropped, storage full", entry.id);
      evict([entry.id]);
    }
  }
}

async function store(entries) {
  const items = Object.fromEntries(entries.map((e) => [PREFIX + e.id, e]));
  try {
    await chrome.storage.session.set({ ...items, [INDEX_KEY]: index });
    return true;
  } catch (e) {
    console.warn("tabgate: history write refused:", e.message);
    return false;
  }
}

function settle(batch) {
  for (const [id, entry] of batch) if (pending.get(id) === entry) pending.delete(id);
}

async function entriesFor(metas) {
  // What is pending is taken now: a write may store and settle it while the storage is being read.
  const held = new Map(metas.filter((m) => pending.has(m.id)).map((m) => [m.id, pending.get(m.id)]));
  const missing = metas.filter((m) => !held.has(m.id)).map((m) => PREFIX + m.id);
  const got = missing.length ? await chrome.storage.session.get(missing) : {};
  return metas.map((m) => held.get(m.id) ?? got[PREFIX + m.id]).filter(Boolean);
}

// Entries newest first: all of them, the `limit` newest, or those changed at or after `since` (ms).
export async function list({ since, limit } = {}) {
  await loaded;
  await decide();
  let metas = typeof since === "number" ? index.filter((m) => m.changedAt >= since) : index;
  if (typeof limit === "number") metas = metas.slice(0, Math.max(0, limit));
  return entriesFor(metas);
}

// Answered once the storage is empty of them. Calls still running are recorded again when they end.
export async function clear() {
  await loaded;
  const ids = index.map((m) => m.id);
  if (ids.length) remove(ids);
  await writeNow();
  return { cleared: ids.length };
}
