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
import { fromPython } from "./py_data.js";
const base = new URL("../", import.meta.url).href; // the build puts its files at the extension's root
// Python's inputs are fetched from this worker's first line, while the runtime's 1.2 MB of JavaScript loads:
// that is why py_boot.mjs (which imports it) comes in by a dynamic import. The names are build.py's.
// (Fetching them in the offscreen document, earlier, stalled every extension page: its thread is theirs.)
const t0 = performance.now();
const boot = import("./py_boot.mjs");
const reads = new Map(
  ["build-info.json", "python/site-packages.img", "python/snapshot.bin"].map((file) => {
    const bytes = fetch(base + file).then(async (response) => {
      if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    });
    bytes.catch(() => {}); // a file this build lacks is reported where it is used
    return [file, bytes];
  }),
);

function read(file) {
  return reads.get(file);
}

const pending = new Map(); // Python's requests waiting for the service worker, by id
let nextId = 1;
let sw = null; // this worker's end of the channel to the service worker
let documentStart = null; // the offscreen document's time origin: boot time counts from there
let state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null, bootPhase: "loading" };

function answerPending(message) {
  for (const resolve of pending.values()) resolve({ error: { code: ErrorCode.SERVER_UNAVAILABLE, message } });
  pending.clear();
}

// What Python may ask of the service worker: its dicts arrive as proxies (Pyodide destroys them after the
// call), each request returns a Promise of a JS object that Python converts itself (core.runtime.bridge).
const api = {
  request(kind, payload) {
    const request = { kind, ...fromPython(payload) };
    return new Promise((resolve) => {
      if (!sw) return resolve({ error: { code: ErrorCode.SERVER_UNAVAILABLE, message: "service worker not reachable" } });
      const id = nextId++;
      pending.set(id, resolve);
      sw.postMessage({ kind: "request", id, request });
    });
  },
  emit(event) {
    sw?.postMessage({ kind: "request", id: 0, request: { kind: "event", event: fromPython(event) } });
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

// The digest runs on the browser's crypto thread while this one links and restores from the same bytes;
// nothing is ready until it matched (a mismatch is thrown where the caller awaits it).
async function checkDigest(entry, bytes) {
  const { SnapshotRefused } = await boot;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== entry.sha256) throw new SnapshotRefused(`${entry.file}: sha256 ${hex} is not the built ${entry.sha256}`);
}

// A promise whose rejection is handled where it is awaited, later: not reported as unhandled meanwhile.
function awaitedLater(promise) {
  promise.catch(() => {});
  return promise;
}

async function startPython() {
  const steps = {};
  const mark = (name) => (steps[name] = Math.round(performance.now() - t0));
  const { bootPython, compileLibraries, readSiteImage, restorePython } = await boot;
  mark("runtimeScript");
  const info = JSON.parse(new TextDecoder().decode(await read("build-info.json")));
  const indexURL = base + "pyodide/";
  const siteBytes = read(info.python.siteImage.file);
  const siteChecked = awaitedLater(siteBytes.then((bytes) => checkDigest(info.python.siteImage, bytes)));
  const site = awaitedLater(
    siteBytes.then(async (bytes) => {
      mark("siteFetched");
      const files = readSiteImage(bytes);
      const libraries = await compileLibraries(files);
      mark("libraries");
      return { files, libraries };
    }),
  );
  let py = null;
  let fallback = null;
  const snapshotMeta = info.python.snapshot;
  if (snapshotMeta) {
    setState({ python: "booting", bootPhase: "restoring" });
    const snapshot = read(snapshotMeta.file).then((bytes) => (mark("snapshot"), bytes));
    const snapshotChecked = awaitedLater(snapshot.then((bytes) => checkDigest(snapshotMeta, bytes)).then(() => mark("snapshotChecked")));
    try {
      const inputs = Promise.all([site, snapshot]).then(([s, snapshotBytes]) => ({ ...s, snapshot: snapshotBytes }));
      py = await restorePython({ indexURL, inputs, snapshotMeta, onPhase: mark });
      mark("restored");
      await snapshotChecked;
    } catch (e) {
      // Restoring altered bytes can fail before their digest is in: the digest's refusal is the reason then.
      const refused = await snapshotChecked.then(() => null, (r) => r);
      py = null;
      fallback = `snapshot not used: ${(refused ?? e).message ?? refused ?? e}`;
      console.warn("tabgate:", fallback);
    }
  }
  if (!py) {
    setState({ python: "booting", bootPhase: "starting" });
    py = await bootPython({ indexURL, inputs: site });
    mark("booted");
  }
  await siteChecked;
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
    // Python runs at once as far as it can: an answer it had without waiting is taken without a turn of its
    // event loop (core.runtime.bridge `Bridge.start`).
    const task = bridge.start(msg.message);
    let answer;
    try {
      answer = task.done() ? task.result() : await task;
      reply = { kind: "reply", id: msg.id, result: fromPython(answer) };
    } finally {
      answer?.destroy?.();
      task.destroy();
    }
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
    resolve?.("error" in msg ? { error: msg.error } : { result: msg.result });
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

