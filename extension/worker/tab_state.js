// What the debugger executor keeps of one attached tab (debugger.js): its sessions, the counters Python reads to
// tell whether the page changed, and bounded buffers of console messages, network requests and dialogs.
import { DebuggerSetup } from "../debugger_setup.js";

const { BUFFER_ENTRIES } = DebuggerSetup; // the buffers' size is Python's (core/browser/debugger_setup.py)

export class TabState {
  constructor(tabId) {
    this.tabId = tabId;
    this.sessions = new Map(); // sessionId → {targetId, url}
    this.console = [];
    this.dialogs = [];
    this.network = new Map(); // requestId → entry, oldest first
    this.dialog = null; // the JavaScript dialog open now
    this.dialogWaiters = new Set();
    this.epoch = 0; // top-level documents seen: refs of an older epoch are stale
    this.leaves = 0; // the tab's own frame began or ended a load of another document: a list stops at one
    this.frames = 0; // frames attached, detached or navigated: a walk's frames are the page's while unchanged
    this.loaderId = null; // the loader of the top-level document now shown (its network request carries it)
    this.drag = null; // drag data Chrome intercepted (Input.setInterceptDrags)
    this.mainFrame = null; // the id of the tab's own frame (its loads are the tab's; others are frames')
    this.committed = ""; // the URL the tab's own frame last committed (what a back/forward restore left)
    this.commitWaiters = new Set(); // wake-ups for the tab's own frame's next commit (seenCommit)
    this.contexts = new Map(); // "session context" → the origin of that script context (whose console it is)
  }

  // The document an entry came from, for Python to tell whose site it is (core/browser/devtools.py): the
  // script context's origin when the event names one, and the page its session shows.
  source(sessionId, contextId) {
    const page = sessionId ? this.sessions.get(sessionId)?.url ?? "" : this.committed;
    return { page, origin: this.contexts.get(`${sessionId ?? ""} ${contextId}`) ?? "" };
  }

  push(list, entry) {
    list.push({ ...entry, epoch: this.epoch });
    if (list.length > BUFFER_ENTRIES) list.splice(0, list.length - BUFFER_ENTRIES);
  }

  request(id, sessionId) {
    let entry = this.network.get(id);
    if (!entry) {
      entry = { id, session: sessionId ?? null, epoch: this.epoch, ...this.source(sessionId) };
      this.network.set(id, entry);
      if (this.network.size > BUFFER_ENTRIES) this.network.delete(this.network.keys().next().value);
    }
    return entry;
  }
}
