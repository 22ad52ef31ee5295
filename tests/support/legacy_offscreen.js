// The boot before issue 12, kept only so `build.py bench` can measure old and new side by side: Pyodide on
// the offscreen document's own thread, pydantic and the core loaded with loadPackage. Not shipped.
// Boots Pyodide from the extension's own files, loads the core by package name (integrity-checked through
// the extension's pyodide-lock.json) and relays between the service worker and core.runtime.bridge.
import { loadPyodide } from "../pyodide/pyodide.mjs";
import { fromPython } from "./py_data.js";

const runtimeUrl = chrome.runtime.getURL("pyodide/");
let state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null };
let bridge = null;
let port = null;
let nextId = 1;
const pending = new Map();

// What Python may ask of the service worker, objects both ways as in the shipped worker (py_worker.js).
const api = {
  request(kind, payload) {
    const request = { kind, ...fromPython(payload) };
    return new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      if (!port) return resolve({ error: { code: -32000, message: "service worker not reachable" } });
      port.postMessage({ kind: "request", id, request });
    });
  },
  emit(event) {
    port?.postMessage({ kind: "request", id: 0, request: { kind: "event", event: fromPython(event) } });
  },
  cancel(callId) {
    port?.postMessage({ kind: "request", id: 0, request: { kind: "cancel", callId } });
  },
};

// The same channel as the shipped build (a MessageChannel to the service worker, the runtime port only as
// the lifeline), so old and new differ only by where Python runs.
function connect() {
  const lifeline = chrome.runtime.connect({ name: "python" });
  const channel = new MessageChannel();
  port = channel.port1;
  port.onmessage = ({ data }) => onMessage(data);
  navigator.serviceWorker.ready.then((r) => r.active.postMessage({ kind: "python-channel" }, [channel.port2]));
  // A stopped service worker takes the port with it; the next one needs it back (Python stays warm here).
  lifeline.onDisconnect.addListener(() => {
    port.close();
    port = null;
    for (const resolve of pending.values()) resolve({ error: { code: -32000, message: "service worker restarted" } });
    pending.clear();
    setTimeout(connect, 50);
  });
  port.postMessage({ kind: "state", state });
}

async function onMessage(msg) {
  if (msg.kind === "reply") {
    const resolve = pending.get(msg.id);
    pending.delete(msg.id);
    resolve?.("error" in msg ? { error: msg.error } : { result: msg.result });
    return;
  }
  if (msg.kind !== "call") return;
  const from = port;
  let reply;
  try {
    if (!bridge) throw new Error(state.pythonError ?? "Python is not ready");
    const answer = await bridge.handle(msg.message);
    try {
      reply = { kind: "reply", id: msg.id, result: fromPython(answer) };
    } finally {
      answer?.destroy?.();
    }
  } catch (e) {
    reply = { kind: "reply", id: msg.id, error: String(e.message ?? e) };
  }
  if (msg.id) from?.postMessage(reply);
}

function setState(next) {
  state = { ...state, ...next };
  port?.postMessage({ kind: "state", state });
}

async function boot() {
  const t0 = performance.now();
  try {
    const py = await loadPyodide({
      indexURL: runtimeUrl,
      packageBaseUrl: runtimeUrl,
      lockFileURL: runtimeUrl + "pyodide-lock.json",
      convertNullToNone: true,
    });
    await py.loadPackage(["tabgate-core"], { checkIntegrity: true });
    bridge = py.pyimport("core.runtime.bridge").create_bridge(api);
    setState({ python: "ready", bootMs: Math.round(performance.now() - t0), bootedAt: Date.now() });
  } catch (e) {
    setState({ python: "failed", pythonError: `Python failed to start: ${e.message ?? e}` });
  }
}

connect();
boot();
