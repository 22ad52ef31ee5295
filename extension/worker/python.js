// The Python side as seen from the service worker: the offscreen document, created lazily, whose worker runs
// Pyodide. The document opens the "python" runtime port (the lifeline: it breaks when either side goes) and
// hands this service worker one end of a MessageChannel to the Python worker, which carries the calls.
import { ErrorCode } from "../error_codes.js";
import { WorkerTiming } from "../worker_timings.js";

const OFFSCREEN_URL = "worker/offscreen.html";

export class PythonConnection {
  constructor({ onState, onRequest, onHello }) {
    this.onState = onState;
    this.onRequest = onRequest; // (msg) => Promise<result>: Python asking the worker for host/browser work
    this.onHello = onHello;
    this.port = null; // the document's lifeline
    this.channel = null; // the MessagePort to the Python worker
    this.state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null };
    this.pending = new Map();
    this.nextId = 1;
    this.readyWaiters = [];
    this.creating = null; // the offscreen document being looked for or created
    chrome.runtime.onConnect.addListener((port) => {
      if (port.name === "python") this.#attach(port);
    });
    const documentUrl = chrome.runtime.getURL(OFFSCREEN_URL);
    self.addEventListener("message", (e) => {
      if (e.data?.kind === "python-channel" && e.ports[0] && e.source?.url === documentUrl) this.#attachChannel(e.ports[0]);
    });
  }

  // Callers share one look-and-create: two that both looked before the document was listed would otherwise
  // both create it, and Chrome allows one (Chrome's offscreen sample does the same).
  ensureDocument() {
    this.creating ??= this.#createDocument().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  async #createDocument() {
    const contexts = await chrome.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] });
    if (contexts.length) return;
    await chrome.offscreen.createDocument({
      url: OFFSCREEN_URL,
      reasons: ["WORKERS"],
      justification: "Runs Tabgate's Python dispatch core (Pyodide).",
    });
  }

  whenReady(timeoutMs = WorkerTiming.PYTHON_READY_LIMIT_MS) {
    if (this.state.python === "ready" && this.channel) return Promise.resolve();
    if (this.state.python === "failed") return Promise.reject(new Error(this.state.pythonError));
    this.ensureDocument().catch((e) => this.#setState({ python: "failed", pythonError: String(e.message) }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Python did not become ready within ${timeoutMs} ms`)), timeoutMs);
      this.readyWaiters.push({ resolve, reject, timer });
    });
  }

  async call(message) {
    await this.whenReady();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Python did not answer ${message.type} within ${WorkerTiming.PYTHON_CALL_LIMIT_MS} ms`));
      }, WorkerTiming.PYTHON_CALL_LIMIT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.channel.postMessage({ kind: "call", id, message });
    });
  }

  notify(message) {
    // State pushes (host connected, servers changed): fire and forget once Python is there.
    this.whenReady().then(() => this.channel?.postMessage({ kind: "call", id: 0, message }), () => {});
  }

  #attach(port) {
    this.port = port;
    port.onMessage.addListener((msg) => this.#receive(port, msg)); // only a worker that failed to load speaks here
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      this.port = null;
      this.#dropChannel();
    });
  }

  #attachChannel(channel) {
    this.#dropChannel();
    this.channel = channel;
    channel.onmessage = ({ data }) => this.#receive(channel, data);
  }

  // The calls sent on the old channel have nobody left to answer them.
  #dropChannel() {
    this.channel?.close();
    this.channel = null;
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error("the Python document went away"));
    }
    this.pending.clear();
  }

  async #receive(port, msg) {
    switch (msg.kind) {
      case "state":
        this.#setState(msg.state);
        if (msg.state.python === "ready") this.onHello?.();
        return;
      case "reply": {
        const waiter = this.pending.get(msg.id);
        if (!waiter) return;
        this.pending.delete(msg.id);
        clearTimeout(waiter.timer);
        if ("error" in msg) waiter.reject(new Error(msg.error));
        else waiter.resolve(msg.result);
        return;
      }
      case "request": {
        let reply;
        try {
          reply = { kind: "reply", id: msg.id, result: await this.onRequest(msg.request) };
        } catch (e) {
          reply = { kind: "reply", id: msg.id, error: e.rpc ?? { code: ErrorCode.INTERNAL_ERROR, message: String(e.message) } };
        }
        try {
          port.postMessage(reply);
        } catch {
          // The document went away while the request ran; nobody is left to answer.
        }
        return;
      }
      default:
        console.warn("tabgate: unknown message from Python", msg.kind);
    }
  }

  #setState(state) {
    this.state = { ...this.state, ...state };
    if (this.state.python !== "booting") {
      for (const w of this.readyWaiters.splice(0)) {
        clearTimeout(w.timer);
        if (this.state.python === "ready") w.resolve();
        else w.reject(new Error(this.state.pythonError ?? "Python failed to start"));
      }
    }
    this.onState?.(this.state);
  }
}
