// Tabgate service worker: relays between extension pages, the Python document and the native host, and
// runs the chrome.* calls Python asks for. Decisions live in Python (core/); nothing is decided here.
import { HostConnection, rpcError } from "./host.js";
import { PythonConnection } from "./python.js";
import { executeBrowserTool } from "./browser_tools.js";
import * as history from "./history.js";
import { createGatewayRelay } from "./agent_relay.js";
import { createElicitations } from "./elicitation.js";
import { signInRequests } from "./oauth.js";
import { activityList } from "./activity_store.js";
import { listenForClicks } from "./approval_notices.js";
import { ErrorCode } from "../error_codes.js";
import { PortState } from "../port_states.js";
import { setNavDecider } from "./nav_hold.js";
import { MessageType, EventType } from "../message_types.js";
import { WorkerTiming } from "../worker_timings.js";

const CONFIG_KEY = "config";
const eventPorts = new Set();
// JSON-RPC id of each running host request by Python's requestKey (Python cancels by it: its give-up, the
// popup's Cancel), and the model's call_id of each tool call's, which its progress maps back to.
const hostIdsByKey = new Map();
const callsByHostId = new Map();
const browserCalls = new Map(); // Python's requestKey → the AbortController that stops that browser call

const host = new HostConnection({
  // Agents reach the browser through the host: while the gateway is on, a host that exits is started again.
  wanted: async () => (await chrome.storage.local.get(CONFIG_KEY))[CONFIG_KEY]?.gateway === true,
  onStatus: (state) => {
    python.notify({ type: MessageType.HOST_STATE, connected: state.host === PortState.CONNECTED, servers: state.servers });
    broadcastStatus();
  },
  onNotification: (method, params) => {
    if (method === "notifications/servers") {
      python.notify({ type: MessageType.HOST_SERVERS, servers: params.servers });
      broadcastStatus();
    } else if (method.startsWith("gateway/")) {
      gateway.hostNotification(method, params);
    } else if (method === "notifications/serverLog") {
      broadcast({ type: EventType.SERVER_LOG, ...params });
    } else if (method.endsWith("/list_changed")) {
      // notifications/{tools,resources,prompts}/list_changed: tools also arrive through the status.
      broadcast({ type: EventType.LIST_CHANGED, kind: method.split("/")[1], server: params.server });
    } else if (method === "notifications/tasks/finished") {
      recordResumedTask(params);
    } else if (method === "notifications/progress") {
      const callId = callsByHostId.get(params.requestId);
      if (callId) {
        broadcast({ type: EventType.PROGRESS, call_id: callId, ...withoutKey(params, "requestId") });
        gateway.progress(callId, withoutKey(params, "requestId"));
      }
    }
  },
  onRequest: (method, params) => {
    const handler = hostRequestHandlers[method];
    if (!handler) throw rpcError(ErrorCode.METHOD_NOT_FOUND, `method not found: ${method}`);
    return handler(params);
  },
});

const python = new PythonConnection({
  onState: () => broadcastStatus(),
  onHello: async () => {
    // A new worker (or a new document) tells Python what it cannot see itself: the stored config and the host.
    // First: any earlier worker's native port, and every agent session through it, is gone.
    python.notify({ type: MessageType.WORKER_HELLO });
    // The agents' activity log a stopped worker or document left (Python merges it under its own).
    python.notify({ type: MessageType.AGENTS_ACTIVITY_LOAD, entries: await activityList() });
    const { [CONFIG_KEY]: config = {} } = await chrome.storage.local.get(CONFIG_KEY);
    python.notify({ type: MessageType.CONFIG_LOAD, config });
    history.tellPython();
    python.notify({ type: MessageType.HOST_STATE, connected: host.connected, servers: host.state.servers });
  },
  onRequest: (req) => pythonRequest(req),
});

const gateway = createGatewayRelay({ host, python, history, broadcast });
// Python decides each held load of an agent's tab (nav_hold.js).
setNavDecider((facts) => python.call({ ...facts, type: MessageType.NAV_PAUSED }));
listenForClicks();
const elicitations = createElicitations({ python, pagesOpen: () => eventPorts.size > 0 });
// The host's requests to the browser, by method: each module answers its own.
const hostRequestHandlers = { ...gateway.hostRequests, ...elicitations.hostRequests, ...signInRequests };

history.start({
  python,
  changed: (entry) => broadcast({ type: EventType.HISTORY, entry }),
  removed: (ids) => broadcast({ type: EventType.HISTORY_REMOVED, ids }),
});

// A task the host resumed after a restart has finished: Python makes its history entry (core/records/resumed_tasks.py).
async function recordResumedTask(task) {
  try {
    const { entry, record } = await python.call({ type: MessageType.TASK_FINISHED, task });
    history.recordStart(entry);
    history.recordEnd(entry.id, record);
  } catch (e) {
    console.error("tabgate: a resumed task's result could not be recorded", e);
  }
}

async function pythonRequest(req) {
  switch (req.kind) {
    case "host":
      return hostRequest(req);
    case "hostEnsure":
      // Python asks only when a call needs the MCP path; the worker (re)connects and says how it went.
      await host.ensure();
      return { connected: host.connected, servers: host.state.servers ?? [] };
    case "browser":
      return browserRequest(req);
    case "tabs":
      return gateway.tabs(req);
    case "event":
      if (!gateway.pythonEvent(req.event)) broadcast(req.event);
      return null;
    case "cancel":
      return cancelRequest(req.callId);
    default:
      throw rpcError(ErrorCode.METHOD_NOT_FOUND, `unknown request kind ${req.kind}`);
  }
}

// One host request for Python. Python enforces its time limit and cancels by requestKey when it gives up.
async function hostRequest({ method, params, requestKey, callId }) {
  let hostId;
  const onSent = (id) => {
    hostId = id;
    if (requestKey !== undefined) hostIdsByKey.set(requestKey, id);
    if (callId) callsByHostId.set(id, callId);
  };
  try {
    return await host.request(method, params ?? {}, { onSent });
  } finally {
    if (hostIdsByKey.get(requestKey) === hostId) hostIdsByKey.delete(requestKey);
    callsByHostId.delete(hostId);
  }
}

// One browser tool call for Python, stopped by its requestKey when Python gives up (a command list then sends
// nothing more to the page).
async function browserRequest({ tool, args, timeoutMs, requestKey }) {
  const stop = new AbortController();
  browserCalls.set(requestKey, stop);
  try {
    return await executeBrowserTool(tool, args ?? {}, timeoutMs, stop);
  } finally {
    browserCalls.delete(requestKey);
  }
}

// `key` is Python's requestKey.
function cancelRequest(key) {
  const browserCall = browserCalls.get(key);
  browserCall?.abort();
  const hostId = hostIdsByKey.get(key);
  if (hostId !== undefined) host.cancel(hostId);
  return { cancelled: hostId !== undefined || browserCall !== undefined };
}

function withoutKey(obj, key) {
  const { [key]: _, ...rest } = obj;
  return rest;
}

// ------------------------------------------------------------------ status and events

async function status() {
  await Promise.all([host.ensure({ restartExited: false }), python.ensureDocument().catch(() => {})]);
  if (python.state.python === "booting" && python.state.bootedAt === null) {
    // After a worker restart the document reconnects within milliseconds; give it that long.
    await Promise.race([python.whenReady().catch(() => {}), new Promise((r) => setTimeout(r, WorkerTiming.STATUS_PYTHON_WAIT_MS))]);
  }
  const { [CONFIG_KEY]: config = {} } = await chrome.storage.local.get(CONFIG_KEY);
  return {
    ...python.state,
    host: host.state.host,
    hostError: host.state.hostError ?? undefined,
    hostInfo: host.state.hostInfo,
    mcpTools: config.mcpTools === true,
    servers: host.state.servers ?? [],
  };
}

function broadcast(event) {
  for (const port of eventPorts) {
    try {
      port.postMessage(event);
    } catch {
      eventPorts.delete(port);
    }
  }
}

let statusTimer = null;
function broadcastStatus() {
  if (!eventPorts.size || statusTimer) return;
  statusTimer = setTimeout(async () => {
    statusTimer = null;
    broadcast({ type: EventType.STATUS, ...(await status()) });
  }, WorkerTiming.STATUS_BATCH_MS);
}

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== "events") return;
  eventPorts.add(port);
  port.onDisconnect.addListener(() => eventPorts.delete(port));
});

// ------------------------------------------------------------------ the runtime API (contract §5)

// A dispatch is recorded around the call, never in its way: Python answers {answer, record}: the answer with
// the outcome it decided (`answer.outcome`), and the record history stores (its status, and the answer only
// when shortened for storage: otherwise the history keeps the answer relayed). The caller gets `answer`
// first, the history `record` after.
async function dispatch(message, respond) {
  const item = message.item ?? {};
  const id = item.call_id ?? item.id ?? crypto.randomUUID();
  history.recordStart({ id, name: item.name ?? item.type, item, startedAt: Date.now() });
  let envelope;
  try {
    envelope = await python.call(message);
  } catch (e) {
    // Python never answered (its document went away or did not start): that is the outcome.
    const answer = { fatal: String(e.message), outcome: "fatal" };
    envelope = { answer, record: { status: "fatal" } };
  }
  respond(envelope.answer);
  // A reply without a record is a bug in the core; the entry still must not stay running.
  history.recordEnd(id, envelope.record ?? { status: "fatal", answer: { fatal: "the core sent no history record", outcome: "fatal" } }, envelope.answer);
}

async function configSet(message) {
  const result = await python.call(message);
  if (!result.error) await chrome.storage.local.set({ [CONFIG_KEY]: result });
  broadcastStatus();
  return result;
}

// Forgetting or trusting an agent changes the config: Python answers the new one, which the worker stores.
async function storingConfig(message) {
  const result = await python.call(message);
  if (result.config && !result.config.error) await chrome.storage.local.set({ [CONFIG_KEY]: result.config });
  return result;
}

const handlers = {
  ...elicitations.handlers,
  [MessageType.STATUS]: () => status(),
  [MessageType.TOOLS]: (m) => python.call(m),
  [MessageType.CONFIG_GET]: (m) => python.call(m),
  [MessageType.CONFIG_SET]: (m) => configSet(m),
  [MessageType.AGENTS_FORGET]: (m) => storingConfig(m),
  [MessageType.AGENTS_TRUST]: (m) => storingConfig(m),
  [MessageType.HISTORY]: (m) => history.list({ since: m.since, limit: m.limit }),
  [MessageType.HISTORY_CLEAR]: () => history.clear(),
  [MessageType.PLAN]: (m) => python.call(m),
  [MessageType.HOST_REQUEST]: async (m) => {
    await host.ensure();
    try {
      return { result: await host.request(m.method, m.params ?? {}) };
    } catch (e) {
      return { error: errorOf(e) };
    }
  },
};

// Pages get every error in one shape, {code, message, data?}: a JSON-RPC error as it came, anything else internal.
function errorOf(e) {
  return e?.rpc ?? { code: ErrorCode.INTERNAL_ERROR, message: String(e?.message ?? e) };
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only this extension's own pages may drive it; content scripts and web pages are not senders here.
  if (sender.id !== chrome.runtime.id || !message) return false;
  if (message.type === MessageType.DISPATCH) {
    dispatch(message, sendResponse);
    return true;
  }
  // Python answers every type the worker does not handle itself, unknown ones with METHOD_NOT_FOUND.
  const handler = handlers[message.type] ?? ((m) => python.call(m));
  handler(message).then(sendResponse, (e) => sendResponse({ error: errorOf(e) }));
  return true;
});

// Start both sides eagerly so the popup finds Python warm.
python.ensureDocument().catch((e) => console.error("tabgate: offscreen document", e));
host.ensure();
