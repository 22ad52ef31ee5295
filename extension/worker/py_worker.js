// The dedicated worker that runs Python, so no extension page's thread ever waits for Pyodide. The offscreen
// document starts it and hands it one end of a MessageChannel whose other end it gives the service worker, so
// calls go service worker ↔ this worker directly, never through a page's thread (a new channel after a
// service-worker restart):
//   from the document: {kind:"channel", documentStart} with the port
//   in (channel):  {kind:"call", id, message}          a runtime message for core.runtime.bridge; id 0 wants no reply
//                  {kind:"reply", id, result | error}  the answer to one of Python's requests
//   out (channel): {kind:"state", state}               boot progress, then ready or failed
//                  {kind:"reply", id, result | error}  the bridge's answer to a call
//                  {kind:"request", id, request}       Python asking the service worker (id 0: event / cancel)
// Calls that arrive while Python boots wait for it; none fails for being early.
import { ErrorCode } from "../error_codes.js";
const base = new URL("../", import.meta.url).href; // the build puts its files at the extension's root
// Python's inputs are read from this worker's first line, while the runtime's 1.2 MB of JavaScript loads:
// that is why py_boot.mjs (which imports it) comes in by a dynamic import. The names are build.py's.
const t0 = performance.now();
const boot = import("./py_boot.mjs");
const reads = new Map(
  ["build-info.json", "python/site-packages.img", "python/snapshot.bin"].map((file) => {
    const response = fetch(base + file);
    response.catch(() => {}); // a file this build lacks is reported where it is used
    return [file, response];
  }),
);

function read(file) {
  const response = reads.get(file) ?? fetch(base + file);
  reads.delete(file);
  return response;
}
const pending = new Map(); // Python's requests waiting for the service worker, by id
let nextId = 1;
let sw = null; // this worker's end of the channel to the service worker
let documentStart = null; // the offscreen document's time origin: boot time counts from there
let state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null, bootPhase: "loading" };

function answerPending(message) {
  for (const resolve of pending.values()) resolve(JSON.stringify({ error: { code: ErrorCode.SERVER_UNAVAILABLE, message } }));
  pending.clear();
}

// What Python may ask of the service worker; each request returns a Promise of JSON text.
const api = {
  request(kind, payloadJson) {
    return new Promise((resolve) => {
      if (!sw) return resolve(JSON.stringify({ error: { code: ErrorCode.SERVER_UNAVAILABLE, message: "service worker not reachable" } }));
      const id = nextId++;
      pending.set(id, resolve);
      sw.postMessage({ kind: "request", id, request: { kind, ...JSON.parse(payloadJson) } });
    });
  },
  emit(eventJson) {
    sw?.postMessage({ kind: "request", id: 0, request: { kind: "event", event: JSON.parse(eventJson) } });
  },
  cancel(callId) {
    sw?.postMessage({ kind: "request", id: 0, request: { kind: "cancel", callId } });
  },
};

function setState(next) {
  state = { ...state, ...next };
  if (state.python === "ready" && state.bootedAt === null) {
    state.bootedAt = Date.now();
    if (documentStart !== null) state.bootMs = Math.round(performance.timeOrigin + performance.now() - documentStart);
  }
  sw?.postMessage({ kind: "state", state });
}

async function fetchVerified(entry) {
  const { SnapshotRefused } = await boot;
  const response = await read(entry.file);
  if (!response.ok) throw new Error(`${entry.file}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== entry.sha256) throw new SnapshotRefused(`${entry.file}: sha256 ${hex} is not the built ${entry.sha256}`);
  return bytes;
}

async function startPython() {
  const steps = {};
  const mark = (name) => (steps[name] = Math.round(performance.now() - t0));
  const { bootPython, compileLibraries, readSiteImage, restorePython } = await boot;
  mark("runtimeScript");
  const info = await (await read("build-info.json")).json();
  const indexURL = base + "pyodide/";
  const site = fetchVerified(info.python.siteImage).then(async (bytes) => {
    const files = readSiteImage(bytes);
    const libraries = await compileLibraries(files);
    mark("libraries");
    return { files, libraries };
  });
  let py = null;
  let fallback = null;
  const snapshotMeta = info.python.snapshot;
  if (snapshotMeta) {
    setState({ python: "booting", bootPhase: "restoring" });
    const snapshot = fetchVerified(snapshotMeta).then((bytes) => (mark("snapshot"), bytes));
    try {
      const inputs = Promise.all([site, snapshot]).then(([s, snapshotBytes]) => ({ ...s, snapshot: snapshotBytes }));
      py = await restorePython({ indexURL, inputs, snapshotMeta, onPhase: mark });
      mark("restored");
    } catch (e) {
      fallback = `snapshot not used: ${e.message ?? e}`;
      console.warn("tabgate:", fallback);
    }
  }
  if (!py) {
    setState({ python: "booting", bootPhase: "starting" });
    py = await bootPython({ indexURL, inputs: site });
    mark("booted");
  }
  const bridge = py.pyimport("core.runtime.bridge").create_bridge(api);
  mark("bridge");
  // When this worker's first line ran, counted from the offscreen document's start (known once a channel came).
  if (documentStart !== null) steps.workerStarted = Math.round(performance.timeOrigin + t0 - documentStart);
  return { bridge, boot: { path: py && !fallback && snapshotMeta ? "snapshot" : "full", fallback, steps } };
}

const ready = startPython();

ready.then(
  ({ boot }) => setState({ python: "ready", bootPhase: null, boot }),
  (e) => setState({ python: "failed", bootPhase: null, pythonError: `Python failed to start: ${e.message ?? e}` }),
);

// The answer goes back on the channel the call came from: a later service worker's ids are its own.
async function onCall(msg, from) {
  let reply;
  try {
    const { bridge } = await ready;
    reply = { kind: "reply", id: msg.id, result: JSON.parse(await bridge.handle(JSON.stringify(msg.message))) };
  } catch (e) {
    reply = { kind: "reply", id: msg.id, error: String(e.message ?? e) };
  }
  if (msg.id) from.postMessage(reply);
}

function onServiceWorkerMessage(from, msg) {
  if (msg.kind === "call") {
    onCall(msg, from);
  } else if (msg.kind === "reply") {
    const resolve = pending.get(msg.id);
    pending.delete(msg.id);
    resolve?.(JSON.stringify("error" in msg ? { error: msg.error } : { result: msg.result }));
  }
}

// A new channel means a new service worker: the old one's requests can no longer be answered.
onmessage = ({ data: msg, ports }) => {
  if (msg.kind !== "channel" || !ports[0]) return;
  answerPending("service worker restarted");
  sw?.close();
  sw = ports[0];
  const port = sw;
  port.onmessage = ({ data }) => onServiceWorkerMessage(port, data);
  documentStart ??= msg.documentStart;
  sw.postMessage({ kind: "state", state });
};

