// The offscreen document: keeps Python alive across service-worker restarts and relays between the service
// worker's `python` port and the dedicated worker that runs Python (py_worker.js). Nothing here parses or
// decides; the port protocol is the one the service worker speaks ({kind: "state" | "call" | "reply" |
// "request"}), and the document's own thread stays free while Python boots or runs.
const worker = new Worker(chrome.runtime.getURL("py_worker.js"), { type: "module" });
let state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null, bootPhase: "loading" };
let port = null;
let nextCallId = 1;
const calls = new Map(); // our call id → {port, id}: each answer goes back to the port that asked
const requests = new Set(); // ids of Python's requests waiting for the service worker

function answerRequest(id, message) {
  requests.delete(id);
  worker.postMessage({ kind: "reply", id, error: { code: -32000, message } });
}

function connect() {
  port = chrome.runtime.connect({ name: "python" });
  port.onMessage.addListener(onPortMessage);
  // A stopped service worker takes the port with it; the next one needs it back (Python stays warm).
  port.onDisconnect.addListener(() => {
    port = null;
    for (const id of [...requests]) answerRequest(id, "service worker restarted");
    setTimeout(connect, 50);
  });
  port.postMessage({ kind: "state", state });
}

function onPortMessage(msg) {
  if (msg.kind === "reply") {
    requests.delete(msg.id);
    worker.postMessage(msg);
  } else if (msg.kind === "call") {
    let id = 0;
    if (msg.id) {
      id = nextCallId++;
      calls.set(id, { port, id: msg.id });
    }
    worker.postMessage({ kind: "call", id, message: msg.message });
  }
}

function setState(next) {
  state = { ...state, ...next };
  port?.postMessage({ kind: "state", state });
}

worker.onmessage = ({ data: msg }) => {
  if (msg.kind === "reply") {
    const call = calls.get(msg.id);
    calls.delete(msg.id);
    try {
      call?.port.postMessage({ ...msg, id: call.id });
    } catch {
      // That service worker is gone; its caller already got "the Python document went away".
    }
  } else if (msg.kind === "request") {
    if (!msg.id) port?.postMessage(msg);
    else if (!port) worker.postMessage({ kind: "reply", id: msg.id, error: { code: -32000, message: "service worker not reachable" } });
    else {
      requests.add(msg.id);
      port.postMessage(msg);
    }
  } else if (msg.kind === "state") {
    // bootMs counts from this document's start, so it includes starting the worker.
    const ready = msg.state.python === "ready";
    setState({ ...msg.state, ...(ready ? { bootMs: Math.round(performance.now()), bootedAt: Date.now() } : {}) });
  }
};

worker.onerror = (e) => {
  setState({ python: "failed", bootPhase: null, pythonError: `Python failed to start: ${e.message ?? "the Python worker did not load"}` });
};

connect();
