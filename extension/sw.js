// Tabgate service worker: relays between extension pages, the Python document and the native host, and
// runs the chrome.* calls Python asks for. Decisions live in Python (core/); nothing is decided here.
import { HostConnection, rpcError } from "./host.js";
import { PythonConnection } from "./python.js";
import { executeBrowserTool } from "./browser_tools.js";
import * as history from "./history.js";
import { createGatewayRelay } from "./gateway.js";

const CONFIG_KEY = "config";
const eventPorts = new Set();
// JSON-RPC id of each running MCP call, by the model's call_id: progress and Cancel need the mapping.
const hostIdsByCall = new Map();
const callsByHostId = new Map();

const host = new HostConnection({
  onStatus: (state) => {
    python.notify({ type: "host/state", connected: state.host === "connected", servers: state.servers });
    broadcastStatus();
  },
  onNotification: (method, params) => {
    if (method === "notifications/servers") {
      python.notify({ type: "host/servers", servers: params.servers });
      broadcastStatus();
    } else if (method.startsWith("gateway/")) {
      gateway.hostNotification(method, params);
    } else if (method === "notifications/progress") {
      const callId = callsByHostId.get(params.requestId);
      if (callId) broadcast({ type: "progress", call_id: callId, ...withoutKey(params, "requestId") });
    }
  },
  onRequest: (method, params) => gateway.hostRequest(method, params),
});

const python = new PythonConnection({
  onState: () => broadcastStatus(),
  onHello: async () => {
    // A new worker (or a new document) tells Python what it cannot see itself: the stored config and the host.
    const { [CONFIG_KEY]: config = {} } = await chrome.storage.local.get(CONFIG_KEY);
    python.notify({ type: "config/load", config });
    python.notify({ type: "host/state", connected: host.connected, servers: host.state.servers });
  },
  onRequest: (req) => pythonRequest(req),
});

const gateway = createGatewayRelay({ host, python });

async function pythonRequest(req) {
  switch (req.kind) {
    case "host": {
      await host.ensure();
      const onSent = req.callId ? (id) => trackCall(req.callId, id) : undefined;
      try {
        return await host.request(req.method, req.params ?? {}, { onSent });
      } finally {
        if (req.callId) untrackCall(req.callId);
      }
    }
    case "browser":
      return executeBrowserTool(req.tool, req.args ?? {}, req.timeoutMs);
    case "event":
      if (!gateway.pythonEvent(req.event)) broadcast(req.event);
      return null;
    case "cancel":
      return cancelCall(req.callId);
    default:
      throw rpcError(-32601, `unknown request kind ${req.kind}`);
  }
}

function trackCall(callId, hostId) {
  hostIdsByCall.set(callId, hostId);
  callsByHostId.set(hostId, callId);
}

function untrackCall(callId) {
  callsByHostId.delete(hostIdsByCall.get(callId));
  hostIdsByCall.delete(callId);
}

function cancelCall(callId) {
  const hostId = hostIdsByCall.get(callId);
  if (hostId !== undefined) host.cancel(hostId);
  return { cancelled: hostId !== undefined };
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
    await Promise.race([python.whenReady().catch(() => {}), new Promise((r) => setTimeout(r, 1500))]);
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
    broadcast({ type: "status", ...(await status()) });
  }, 20);
}

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== "events") return;
  eventPorts.add(port);
  port.onDisconnect.addListener(() => eventPorts.delete(port));
});

// ------------------------------------------------------------------ the runtime API (contract §5)

// Python decides whether the MCP path exists from the host state it was told, so a call reconnects a host
// that exited before Python sees it (and is not refused as "not supported"). Listing tools does not: the
// popup keeps showing that the host exited until the person runs something.
async function withHost(message, { restartExited = true } = {}) {
  await host.ensure({ restartExited });
  return python.call(message);
}

async function dispatch(message) {
  const item = message.item ?? {};
  const id = item.call_id ?? item.id ?? crypto.randomUUID();
  // Recorded behind the call: the entry is in memory at once and reaches storage without delaying the answer.
  history.recordStart({ id, name: item.name ?? item.type, item, startedAt: Date.now() });
  let answer;
  try {
    answer = await withHost(message);
  } catch (e) {
    answer = { fatal: String(e.message) };
  }
  const outcome = answer.fatal !== undefined ? "fatal" : answer.success === false ? "failed" : "done";
  history.recordEnd(id, { status: outcome, answer, finishedAt: Date.now() });
  return answer;
}

async function configSet(message) {
  const result = await python.call(message);
  if (!result.error) await chrome.storage.local.set({ [CONFIG_KEY]: result });
  broadcastStatus();
  return result;
}

const handlers = {
  status: () => status(),
  tools: (m) => withHost(m, { restartExited: false }),
  dispatch: (m) => dispatch(m),
  "config/get": (m) => python.call(m),
  "config/set": (m) => configSet(m),
  history: () => history.list(),
  plan: (m) => python.call(m),
  approvals: (m) => python.call(m),
  "approval/answer": (m) => python.call(m),
  "gateway/agents": (m) => python.call(m),
  cancel: async (m) => cancelCall(m.call_id),
  "host/request": async (m) => {
    await host.ensure();
    try {
      return { result: await host.request(m.method, m.params ?? {}) };
    } catch (e) {
      return { error: e.rpc ?? { code: -32603, message: String(e.message) } };
    }
  },
};

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only this extension's own pages may drive it; content scripts and web pages are not senders here.
  if (sender.id !== chrome.runtime.id || !message || !(message.type in handlers)) return false;
  handlers[message.type](message).then(sendResponse, (e) => sendResponse({ error: String(e.message ?? e) }));
  return true;
});

// Start both sides eagerly so the popup finds Python warm.
python.ensureDocument().catch((e) => console.error("tabgate: offscreen document", e));
host.ensure();
