// The dedicated worker that runs Python, so no extension page's thread ever waits for Pyodide. The
// offscreen document relays the service worker's `python` port to it over postMessage (it has no chrome.*):
//   in:  {kind:"call", id, message}          a runtime message for core.bridge; id 0 wants no reply
//        {kind:"reply", id, result | error}  the answer to one of Python's requests
//   out: {kind:"state", state}               boot progress, then ready or failed
//        {kind:"reply", id, result | error}  the bridge's answer to a call
//        {kind:"request", id, request}       Python asking the service worker (id 0: event / cancel)
// Calls that arrive while Python boots wait for it; none fails for being early.
import { SnapshotRefused, bootPython, compileLibraries, readSiteImage, restorePython } from "./py_boot.mjs";

const base = new URL("./", import.meta.url).href;
const pending = new Map();
let nextId = 1;

// What Python may ask of the service worker; each request returns a Promise of JSON text.
const api = {
  request(kind, payloadJson) {
    return new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      postMessage({ kind: "request", id, request: { kind, ...JSON.parse(payloadJson) } });
    });
  },
  emit(eventJson) {
    postMessage({ kind: "request", id: 0, request: { kind: "event", event: JSON.parse(eventJson) } });
  },
  cancel(callId) {
    postMessage({ kind: "request", id: 0, request: { kind: "cancel", callId } });
  },
};

function setState(state) {
  postMessage({ kind: "state", state });
}

async function fetchVerified(entry) {
  const response = await fetch(base + entry.file);
  if (!response.ok) throw new Error(`${entry.file}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== entry.sha256) throw new SnapshotRefused(`${entry.file}: sha256 ${hex} is not the built ${entry.sha256}`);
  return bytes;
}

async function startPython() {
  const t0 = performance.now();
  const steps = {};
  const mark = (name) => (steps[name] = Math.round(performance.now() - t0));
  const info = await (await fetch(base + "build-info.json")).json();
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
      py = await restorePython({ indexURL, inputs, snapshotMeta });
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
  const bridge = py.pyimport("core.bridge").create_bridge(api);
  mark("bridge");
  return { bridge, boot: { path: py && !fallback && snapshotMeta ? "snapshot" : "full", fallback, steps } };
}

const ready = startPython();

ready.then(
  ({ boot }) => setState({ python: "ready", bootPhase: null, boot }),
  (e) => setState({ python: "failed", bootPhase: null, pythonError: `Python failed to start: ${e.message ?? e}` }),
);

async function onCall(msg) {
  let reply;
  try {
    const { bridge } = await ready;
    reply = { kind: "reply", id: msg.id, result: JSON.parse(await bridge.handle(JSON.stringify(msg.message))) };
  } catch (e) {
    reply = { kind: "reply", id: msg.id, error: String(e.message ?? e) };
  }
  if (msg.id) postMessage(reply);
}

onmessage = ({ data: msg }) => {
  if (msg.kind === "call") {
    onCall(msg);
  } else if (msg.kind === "reply") {
    const resolve = pending.get(msg.id);
    pending.delete(msg.id);
    resolve?.(JSON.stringify("error" in msg ? { error: msg.error } : { result: msg.result }));
  }
};

setState({ python: "booting", bootPhase: "loading" });
