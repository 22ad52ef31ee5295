// The one debugger executor. It attaches chrome.debugger to a tab the first time Python acts on it, follows the
// sessions of its out-of-process frames (flat sessions), keeps bounded buffers of console messages, network
// requests and dialogs, and runs the lists of CDP commands Python builds. It decides nothing about pages:
// which commands to send, in which order and what their results mean is Python's (core/browser/).
import { rpcError } from "./host.js";
import { ErrorCode } from "../error_codes.js";
import { DebuggerSetup } from "../debugger_setup.js";
import { heldRestore, holdPaused } from "./nav_hold.js";
import { checkSite, originOf } from "./tab_site.js";
import { TabState } from "./tab_state.js";

// How every session is set up, the buffers' size and the document hold are Python's
// (core/browser/debugger_setup.py).
const { PROTOCOL_VERSION, SESSION_SETUP, HOLD_DOCUMENTS, RELEASE_DOCUMENTS } = DebuggerSetup;

// What a frame shows, as Python read it from the same frame tree (core/browser/page_walk.py _frame_sites): its
// URL's origin, else its document's (an about:blank frame's is its parent's).
function frameShows(frame) {
  const origin = [frame.url, frame.securityOrigin].map(originOf).find((o) => o !== "null");
  return origin ?? (frame.url || "nothing");
}

function findFrame(tree, id) {
  if (tree.frame.id === id) return tree.frame;
  for (const child of tree.childFrames ?? []) {
    const found = findFrame(child, id);
    if (found) return found;
  }
  return null;
}

// A call that carries `frame` ({session, frameId, site}: the child frame an approval was for) acts only while
// that frame shows that site; otherwise PAGE_CHANGED, as for the tab's own site.
async function checkFrame(tabId, a) {
  let shown = "nothing (the frame is gone)";
  try {
    const { frameTree } = await send(tabId, a.frame.session, "Page.getFrameTree");
    const frame = findFrame(frameTree, a.frame.frameId);
    if (frame) shown = frameShows(frame);
  } catch {
    // its session is gone with the frame
  }
  if (shown !== a.frame.site) throw rpcError(ErrorCode.PAGE_CHANGED, `the frame shows ${shown}`, { tabId, shown });
}

const tabs = new Map(); // tabId → TabState, while attached
const attaching = new Map(); // tabId → Promise of TabState
const guarded = new Set(); // the agents' tabs, as Python names them: their document loads are held (nav_hold.js)

function send(tabId, sessionId, method, params) {
  const target = sessionId ? { tabId, sessionId } : { tabId };
  return chrome.debugger.sendCommand(target, method, params ?? {});
}

async function setUp(tabId, sessionId) {
  const steps = guarded.has(tabId) ? [HOLD_DOCUMENTS, ...SESSION_SETUP] : SESSION_SETUP;
  for (const [method, params] of steps) await send(tabId, sessionId, method, params);
}

// {tabs}: the tabs whose document loads are held from now on (attached now, so that their next load is held);
// every other tab's are let go.
export async function guardTabs(ids) {
  const wanted = new Set(ids);
  const changed = [...new Set([...guarded, ...wanted])].filter((id) => guarded.has(id) !== wanted.has(id));
  guarded.clear();
  for (const id of wanted) guarded.add(id);
  await Promise.all(changed.map(async (tabId) => {
    const known = tabs.get(tabId);
    if (!known) {
      if (wanted.has(tabId)) await attachedTab(tabId).catch(() => {}); // a tab Chrome lets nobody attach to
      return;
    }
    const [method, params] = wanted.has(tabId) ? HOLD_DOCUMENTS : RELEASE_DOCUMENTS;
    await Promise.all([null, ...known.sessions.keys()].map((id) => send(tabId, id, method, params).catch(() => {})));
  }));
  return { guarded: [...guarded] };
}

// Resolves once the debugger has seen a held tab's own frame commit `url` (at once if it has, or the tab is not
// held; else by `ms`): Chrome may report a history step done before that commit's event, and a restore from
// the back/forward cache is decided on that event (nav_hold.js).
export function seenCommit(tabId, url, ms) {
  const state = tabs.get(tabId);
  if (!state || !guarded.has(tabId) || state.committed === url) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      state.commitWaiters.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    state.commitWaiters.add(wake);
  });
}

export async function attachedTab(tabId) {
  const known = tabs.get(tabId);
  if (known) return known;
  if (!attaching.has(tabId)) {
    const start = (async () => {
      const state = new TabState(tabId);
      try {
        await chrome.debugger.attach({ tabId }, PROTOCOL_VERSION);
      } catch (e) {
        // Already ours (a worker restart forgot it): keep using the attachment.
        if (!/already attached/i.test(String(e.message))) throw e;
      }
      tabs.set(tabId, state);
      try {
        await setUp(tabId, null);
        const { frame } = (await send(tabId, null, "Page.getFrameTree")).frameTree;
        [state.mainFrame, state.committed] = [frame.id, frame.url];
      } catch (e) {
        tabs.delete(tabId);
        throw e;
      }
      return state;
    })();
    attaching.set(tabId, start);
    start.finally(() => attaching.delete(tabId)).catch(() => {});
  }
  return attaching.get(tabId);
}

function text(args) {
  return (args ?? [])
    .map((a) => (a.value !== undefined ? (typeof a.value === "string" ? a.value : JSON.stringify(a.value)) : a.description ?? a.type))
    .join(" ");
}

// One handler per event this executor keeps; everything else is dropped.
const EVENTS = {
  "Target.attachedToTarget"(state, p) {
    if (p.targetInfo.type !== "iframe") return;
    state.frames += 1;
    state.sessions.set(p.sessionId, { targetId: p.targetInfo.targetId, url: p.targetInfo.url });
    setUp(state.tabId, p.sessionId).catch(() => state.sessions.delete(p.sessionId));
  },
  "Target.detachedFromTarget"(state, p) {
    state.frames += 1;
    state.sessions.delete(p.sessionId);
    EVENTS["Runtime.executionContextsCleared"](state, {}, p.sessionId);
  },
  "Page.frameAttached"(state) {
    state.frames += 1;
  },
  "Page.frameDetached"(state) {
    state.frames += 1;
  },
  "Page.navigatedWithinDocument"(state) {
    state.frames += 1;
  },
  "Target.targetInfoChanged"(state, p) {
    for (const info of state.sessions.values()) if (info.targetId === p.targetInfo.targetId) info.url = p.targetInfo.url;
  },
  "Fetch.requestPaused"(state, p, sessionId) {
    const top = !sessionId && p.frameId === state.mainFrame;
    holdPaused(send, state.tabId, sessionId, p, top);
  },
  "Page.frameStartedNavigating"(state, p, sessionId) {
    if (!sessionId && p.frameId === state.mainFrame && !/sameDocument/i.test(p.navigationType)) state.leaves += 1;
  },
  "Page.frameNavigated"(state, p, sessionId) {
    state.frames += 1;
    if (sessionId || p.frame.parentId) return;
    state.mainFrame = p.frame.id;
    state.epoch += 1;
    state.leaves += 1;
    state.loaderId = p.frame.loaderId;
    const left = state.committed;
    state.committed = p.frame.url;
    // A page restored from the back/forward cache sent no request for Fetch to hold: its commit is decided.
    if (p.type === "BackForwardCacheRestore" && guarded.has(state.tabId)) heldRestore(send, state.tabId, p.frame.url, left);
    for (const wake of [...state.commitWaiters]) wake();
  },
  "Runtime.executionContextCreated"(state, p, sessionId) {
    state.contexts.set(`${sessionId ?? ""} ${p.context.id}`, p.context.origin);
  },
  "Runtime.executionContextDestroyed"(state, p, sessionId) {
    state.contexts.delete(`${sessionId ?? ""} ${p.executionContextId}`);
  },
  "Runtime.executionContextsCleared"(state, p, sessionId) {
    for (const key of [...state.contexts.keys()]) if (key.startsWith(`${sessionId ?? ""} `)) state.contexts.delete(key);
  },
  "Runtime.consoleAPICalled"(state, p, sessionId) {
    const top = p.stackTrace?.callFrames?.[0];
    state.push(state.console, { level: p.type, text: text(p.args), url: top?.url, line: top?.lineNumber, time: p.timestamp, frame: sessionId ?? null, ...state.source(sessionId, p.executionContextId) });
  },
  "Runtime.exceptionThrown"(state, p, sessionId) {
    const d = p.exceptionDetails;
    state.push(state.console, { level: "error", text: d.exception?.description ?? d.text, url: d.url, line: d.lineNumber, time: p.timestamp, frame: sessionId ?? null, ...state.source(sessionId, d.executionContextId) });
  },
  "Log.entryAdded"(state, p, sessionId) {
    const e = p.entry;
    state.push(state.console, { level: e.level, text: e.text, url: e.url, source: e.source, time: e.timestamp, frame: sessionId ?? null, ...state.source(sessionId) });
  },
  "Network.requestWillBeSent"(state, p, sessionId) {
    const entry = state.request(p.requestId, sessionId);
    Object.assign(entry, {
      url: p.request.url, method: p.request.method, type: p.type, requestHeaders: p.request.headers,
      postData: p.request.postData, loaderId: p.loaderId, frameId: p.frameId, time: p.wallTime, doc: p.documentURL,
    });
    if (p.redirectResponse) entry.redirectedFrom = p.redirectResponse.url;
  },
  "Network.responseReceived"(state, p, sessionId) {
    const r = p.response;
    Object.assign(state.request(p.requestId, sessionId), {
      status: r.status, statusText: r.statusText, mimeType: r.mimeType, responseHeaders: r.headers, responseUrl: r.url,
    });
  },
  "Network.loadingFinished"(state, p, sessionId) {
    Object.assign(state.request(p.requestId, sessionId), { finished: true, size: p.encodedDataLength });
  },
  "Network.loadingFailed"(state, p, sessionId) {
    Object.assign(state.request(p.requestId, sessionId), { errorText: p.errorText, canceled: p.canceled, blockedReason: p.blockedReason });
  },
  "Page.javascriptDialogOpening"(state, p, sessionId) {
    state.dialog = { type: p.type, message: p.message, defaultPrompt: p.defaultPrompt, url: p.url, session: sessionId ?? null };
    state.push(state.dialogs, { ...state.dialog, opened: Date.now() });
    for (const wake of state.dialogWaiters) wake();
  },
  "Page.javascriptDialogClosed"(state, p) {
    const last = state.dialogs[state.dialogs.length - 1];
    if (last) Object.assign(last, { accepted: p.result, userInput: p.userInput });
    state.dialog = null;
  },
  "Input.dragIntercepted"(state, p) {
    state.drag = p.data;
  },
};

chrome.debugger.onEvent.addListener((source, method, params) => {
  const state = tabs.get(source.tabId);
  const handle = EVENTS[method];
  if (state && handle) handle(state, params, source.sessionId);
});

// Detached: the tab closed, it showed a page the debugger may not stay on, or the user closed Chrome's
// "started debugging this browser" bar. The next call attaches again (and Chrome shows the bar again).
chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId !== undefined) tabs.delete(source.tabId);
});
chrome.tabs.onRemoved.addListener((tabId) => tabs.delete(tabId));

// A command that makes the page open a dialog does not answer until the dialog is closed: such a command
// answers {dialog} as soon as the dialog opens, so Python can tell the model about it.
function runCommand(state, { method, params, session }) {
  let stop;
  const opened = new Promise((resolve) => {
    stop = () => resolve({ dialog: state.dialog });
    state.dialogWaiters.add(stop);
  });
  const command = send(state.tabId, session, method, params).then(
    (result) => ({ result }),
    (e) => ({ error: String(e.message ?? e) }),
  );
  return Promise.race([command, opened]).finally(() => state.dialogWaiters.delete(stop));
}

// Params earlier results of the list give (so a chain of commands costs one round trip): {centerOf: i} x and y
// at the middle of the first quad result i read (core/browser/elements.py aims input at it), {objectOf: i}
// objectId of the object result i answered (DOM.resolveNode's or Runtime.evaluate's), {fill: [[param, i,
// path]]} a param (a dotted one inside params) from result i, or i back when negative, at the dotted path.
// One missing and the list stops, this command answering why.
function placed(command, results) {
  const params = structuredClone(command.params ?? {});
  const result = (i) => results.at(i < 0 ? results.length + i : i)?.result;
  if (command.centerOf !== undefined) {
    const quad = result(command.centerOf)?.quads?.[0];
    if (!quad) return { error: "no box", noBox: true };
    const middle = (axis) => Math.round((quad[axis] + quad[axis + 2] + quad[axis + 4] + quad[axis + 6]) / 4);
    [params.x, params.y] = [middle(0), middle(1)];
  }
  if (command.objectOf !== undefined) {
    const answered = result(command.objectOf);
    params.objectId = answered?.object?.objectId ?? answered?.result?.objectId;
    if (!params.objectId) return { error: "no object", noObject: true };
  }
  for (const [name, i, path] of command.fill ?? []) {
    const value = path.split(".").reduce((v, key) => v?.[key], result(i));
    if (value === undefined) return { error: `nothing at ${path}`, noObject: true };
    const keys = name.split(".");
    keys.slice(0, -1).reduce((inner, key) => inner[key], params)[keys.at(-1)] = value;
  }
  return { params };
}

function describe(state, tab) {
  return {
    tab: { id: tab.id, url: tab.url, pendingUrl: tab.pendingUrl, title: tab.title, status: tab.status },
    epoch: state.epoch,
    frames: state.frames,
    dialog: state.dialog,
    sessions: [...state.sessions].map(([id, info]) => ({ id, ...info })),
  };
}

// {commands: [{method, params?, session?, centerOf?, objectOf?, fill?, oopifsOnly?, endIfThrown?, withNext?}], parallel?, keepGoing?, unlessDialog?, epoch?, frames?, site?}: runs the commands (one after
// the other, or all at once) and answers their results in order, each {result} or {error} (or {dialog}).
// Sequential runs stop at the first error unless keepGoing, on leaving their document (left: true) and once
// `signal` aborts (Python gave up on the call); with unlessDialog nothing runs while a dialog is open. The
// answer also says the tab, sessions, epoch and dialog.
export async function runCommands(tab, a, signal, again = true) {
  const state = await attachedTab(tab.id);
  // Checked after attaching, right before the first command goes out.
  if (a.site !== undefined) checkSite(await chrome.tabs.get(tab.id), a);
  if (a.frame !== undefined) await checkFrame(tab.id, a);
  const results = [];
  let left = false;
  // Nothing runs while a dialog blocks the action, once the tab shows another document than `epoch`, or once
  // its frames changed since `frames`.
  const unchanged = (a.epoch === undefined || a.epoch === state.epoch) && (a.frames === undefined || a.frames === state.frames);
  if (!(a.unlessDialog && state.dialog) && unchanged) {
    if (a.parallel) {
      results.push(...(await Promise.all(a.commands.map((c) => runCommand(state, c)))));
    } else {
      // oopifsOnly: sent only while a frame of the tab runs in another process (Python's rule for when it
      // is needed, core/browser/input_guard.py), else answered skipped.
      const run = (command) => {
        if (command.oopifsOnly && state.sessions.size === 0) return { skipped: true };
        if (command.centerOf === undefined && command.objectOf === undefined && !command.fill) return runCommand(state, command);
        const place = placed(command, results);
        return place.params ? runCommand(state, { ...command, params: place.params }) : place;
      };
      const begun = state.leaves;
      for (let i = 0; i < a.commands.length && !signal?.aborted; i++) {
        // A list acts on the document it began on: once the tab begins to load another, the rest goes to no page.
        if (state.leaves !== begun) {
          left = true;
          break;
        }
        // withNext: this command and the next go out together, both answered before the list goes on.
        const group = a.commands[i].withNext && i + 1 < a.commands.length ? [a.commands[i], a.commands[++i]] : [a.commands[i]];
        const outcomes = await Promise.all(group.map(run));
        results.push(...outcomes);
        const stops = outcomes.some((outcome, k) => outcome.dialog || outcome.noBox || outcome.noObject
          || (group[k].endIfThrown && outcome.result?.exceptionDetails !== undefined) || (outcome.error && !a.keepGoing));
        if (stops) break;
      }
    }
  }
  // Detached without an onDetach event (the extension's own chrome.debugger.detach): attach again once.
  if (again && results.some((r) => /not attached/i.test(r.error ?? ""))) {
    tabs.delete(tab.id);
    return runCommands(tab, a, signal, false);
  }
  const answer = { ...describe(state, await chrome.tabs.get(tab.id)), results };
  if (left) answer.left = true;
  if (state.drag) {
    answer.drag = state.drag;
    state.drag = null;
  }
  return answer;
}

// The JavaScript dialog open in a tab Tabgate is attached to, or null.
export function openDialog(tabId) {
  return tabs.get(tabId)?.dialog ?? null;
}

// {buffer: "console" | "network" | "dialogs"}: what that buffer holds, each entry with the document epoch it was
// recorded in, and the loader of the document shown now (Python filters, splits by page and cuts).
export async function readBuffer(tab, a) {
  checkSite(tab, a);
  const fresh = !tabs.has(tab.id);
  const state = await attachedTab(tab.id);
  const buffers = { console: state.console, network: [...state.network.values()], dialogs: state.dialogs };
  const entries = buffers[a.buffer];
  if (!entries) throw rpcError(ErrorCode.INVALID_PARAMS, `unknown buffer ${a.buffer}`);
  return { ...describe(state, await chrome.tabs.get(tab.id)), entries, loaderId: state.loaderId, recordingSince: fresh ? "now" : undefined };
}
