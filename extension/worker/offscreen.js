// The offscreen document: keeps Python alive across service-worker restarts. It starts the dedicated worker
// that runs Python (py_worker.js) and joins it to the service worker with a MessageChannel, so calls never
// pass through this document's thread (the one every extension page shares). The `python` runtime port is
// only the lifeline: when the service worker stops, the port breaks, and the next worker gets a new channel.
import { WorkerTiming } from "../worker_timings.js";

const worker = new Worker(chrome.runtime.getURL("worker/py_worker.js"), { type: "module" });
let port = null;
let failure = null; // the worker could not even load: said on the lifeline, since it has no channel to say it

function connect() {
  port = chrome.runtime.connect({ name: "python" });
  port.onDisconnect.addListener(() => {
    port = null;
    setTimeout(connect, WorkerTiming.OFFSCREEN_RECONNECT_MS);
  });
  if (failure) port.postMessage({ kind: "state", state: failure });
  const channel = new MessageChannel();
  worker.postMessage({ kind: "channel", documentStart: performance.timeOrigin }, [channel.port1]);
  navigator.serviceWorker.ready.then((registration) =>
    registration.active.postMessage({ kind: "python-channel" }, [channel.port2]),
  );
}

worker.onerror = (e) => {
  failure = { python: "failed", bootPhase: null, pythonError: `Python failed to start: ${e.message ?? "the Python worker did not load"}` };
  port?.postMessage({ kind: "state", state: failure });
};

connect();
