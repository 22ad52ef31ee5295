// The agents' activity log across a service-worker restart (contract §9): Python decides the entries and
// their bound. It sends each new entry with how many entries the log keeps (`keep`), and the whole list only
// after a new Python document has loaded the stored one; the worker applies each change to the list it
// keeps in chrome.storage.session under one key (one write, so a failed write leaves the last good list
// whole), at most once per WRITE_DELAY_MS, and hands it back to a new Python document.
import { WorkerTiming } from "../worker_timings.js";

const KEY = "agents-activity";
// Changes within this time share one write of the whole list (Python's timing).
const WRITE_DELAY_MS = WorkerTiming.ACTIVITY_WRITE_DELAY_MS;

let stored = null; // the list as written or about to be; read back from storage after a restart
let loading = null; // reading it back: once, whoever asks first
const changes = [];
let writeTimer = null; // set while a write is due or running: changes meanwhile go in the next one

export function storeActivity(change) {
  changes.push(change);
  writeTimer ??= setTimeout(write, WRITE_DELAY_MS);
}

async function write() {
  const list = await activityList();
  try {
    await chrome.storage.session.set({ [KEY]: list });
  } catch (e) {
    console.warn("tabgate: activity log not stored:", e.message);
  }
  writeTimer = changes.length ? setTimeout(write, WRITE_DELAY_MS) : null;
}

// The log as this worker has it: the stored list with every change applied, written or not yet.
export async function activityList() {
  loading ??= storedActivity().then((list) => {
    stored = list;
  });
  await loading;
  for (const { entries, entry, keep } of changes.splice(0)) {
    stored = (entries ?? [entry, ...stored]).slice(0, keep);
  }
  return stored;
}

async function storedActivity() {
  try {
    const { [KEY]: entries = [] } = await chrome.storage.session.get(KEY);
    return Array.isArray(entries) ? entries : [];
  } catch (e) {
    console.warn("tabgate: activity log not read:", e.message);
    return [];
  }
}
