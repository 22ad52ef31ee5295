// The Python side as seen from the service worker: the offscreen document that runs Pyodide, created
// lazily, and the "python" port it opens (and re-opens after a service-worker restart).

const OFFSCREEN_URL = "offscreen.html";
const CALL_TIMEOUT_MS = 10 * 60 * 1000;

export class PythonConnection {
  constructor({ onState, onRequest, onHello }) {
    this.onState = onState;
    this.onRequest = onRequest; // (msg) => Promise<result>: Python asking the worker for host/browser work
    this.onHello = onHello;
    this.port = null;
    this.state = { python: "booting", pythonError: null, bootMs: null, bootedAt: null };
    this.pending = new Map();
    this.nextId = 1;
    this.readyWaiters = [];
    chrome.runtime.onConnect.addListener((port) => {
      if (port.name === "python") this.#attach(port);
    });
  }

  async ensureDocument() {
    const contexts = await chrome.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] });
    if (contexts.length) return;
    try {
      await chrome.offscreen.createDocument({
        url: OFFSCREEN_URL,
        reasons: ["WORKERS"],
        justification: "Runs Tabgate's Python dispatch core (Pyodide).",
      });
    } catch (e) {
      // Two callers can race past getContexts; only one document may exist and that is fine.
      if (!String(e.message).includes("single offscreen")) throw e;
    }
  }

  whenReady(timeoutMs = 60000) {
    if (this.state.python === "ready" && this.port) return Promise.resolve();
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
        reject(new Error(`Python did not answer ${message.type} within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.port.postMessage({ kind: "call", id, message });
    });
  }

  notify(message) {
    // State pushes (host connected, servers changed): fire and forget once Python is there.
    this.whenReady().then(() => this.port?.postMessage({ kind: "call", id: 0, message }), () => {});
  }

  #attach(port) {
    this.port = port;
    port.onMessage.addListener((msg) => this.#receive(port, msg));
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      this.port = null;
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new Error("the Python document went away"));
      }
      this.pending.clear();
    });
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
          reply = { kind: "reply", id: msg.id, error: e.rpc ?? { code: -32603, message: String(e.message) } };
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
