// The native messaging host connection: one long-lived port, JSON-RPC requests, `$/chunk` reassembly.
// What Chrome's disconnect messages mean and how long a wanted host waits before it is started again are
// Python's (core/host_link/port_states.py, written as port_states.js).
import { ErrorCode } from "../error_codes.js";
import { HostPort, PortState, PortRule } from "../port_states.js";
import { WorkerTiming } from "../worker_timings.js";

const { HOST_RETRY_MS, HOST_STABLE_MS, HOST_RESTART_DELAYS_MS } = WorkerTiming;

export function hostStateFor(message) {
  for (const [text, state] of Object.entries(PortRule.CHROME_SAYS)) if (message && message.includes(text)) return state;
  return PortState.ERROR;
}

export class HostConnection {
  constructor({ onStatus, onNotification, onRequest, wanted }) {
    this.onStatus = onStatus;
    this.wanted = wanted; // () => Promise<boolean>: restart an exited host by itself (agents rely on it)
    this.onNotification = onNotification;
    this.onRequest = onRequest; // (method, params) => Promise<result>: the host asking for an agent
    this.port = null;
    this.state = { host: PortState.NOT_INSTALLED, hostError: null, servers: [] };
    this.pending = new Map();
    this.chunks = new Map();
    this.nextId = 1;
    this.connecting = null;
    this.lastAttempt = 0;
    this.connectedAt = 0;
    this.restarts = 0; // restarts since the host last ran HOST_STABLE_MS: the index into HOST_RESTART_DELAYS_MS
    this.restartTimer = null;
  }

  get connected() {
    return this.state.host === PortState.CONNECTED;
  }

  // Connect unless connected; a failed attempt is retried at most every HOST_RETRY_MS (the user may install
  // the host at any time). An exited host is restarted by the next call, not by a status check, so the user
  // sees that it exited — unless it is wanted (the agent gateway is on): then it is restarted at once.
  ensure({ restartExited = true } = {}) {
    if (this.connected || this.connecting) return this.connecting ?? Promise.resolve(this.connected);
    const exited = this.state.host === PortState.EXITED;
    if (exited && !restartExited) return Promise.resolve(false);
    // A missing or refused host is looked for again at most every HOST_RETRY_MS; an exited one at once.
    if (!exited && Date.now() - this.lastAttempt < HOST_RETRY_MS) return Promise.resolve(false);
    this.lastAttempt = Date.now();
    this.connecting = this.#connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async #connect() {
    let port;
    try {
      port = chrome.runtime.connectNative(HostPort.NAME);
    } catch (e) {
      this.#setState({ host: hostStateFor(String(e.message)), hostError: String(e.message), servers: [] });
      return false;
    }
    this.port = port;
    port.onMessage.addListener((msg) => this.#receive(msg));
    port.onDisconnect.addListener(() => this.#disconnected(port));
    try {
      const init = await this.#send(port, "initialize", {
        client: { name: "tabgate-extension", version: chrome.runtime.getManifest().version },
        protocolVersion: HostPort.PROTOCOL_VERSION,
      });
      this.connectedAt = Date.now();
      this.#setState({ host: PortState.CONNECTED, hostError: null, servers: init.servers ?? [], hostInfo: init.host });
      return true;
    } catch (e) {
      if (this.port === port && this.state.host !== PortState.CONNECTED) {
        // The disconnect handler has already set the state when the port died.
        if (port === this.port) this.#setState({ host: PortState.ERROR, hostError: String(e.message), servers: [] });
      }
      return false;
    }
  }

  #disconnected(port) {
    if (this.port !== port) return;
    const message = chrome.runtime.lastError?.message ?? PortRule.EXIT_MESSAGE;
    this.port = null;
    for (const { reject } of this.pending.values()) reject(rpcError(ErrorCode.SERVER_UNAVAILABLE, `native host disconnected: ${message}`));
    this.pending.clear();
    this.chunks.clear();
    this.#setState({ host: hostStateFor(message), hostError: message, servers: [] });
    this.#restartIfWanted();
  }

  async #restartIfWanted() {
    if (!PortRule.RESTARTED_WHEN_WANTED.includes(this.state.host) || !(await this.wanted?.())) return;
    if (this.restartTimer || this.port || this.connecting) return; // one restart at a time
    if (Date.now() - this.connectedAt > HOST_STABLE_MS) this.restarts = 0;
    const delay = HOST_RESTART_DELAYS_MS[Math.min(this.restarts++, HOST_RESTART_DELAYS_MS.length - 1)];
    this.restartTimer = setTimeout(async () => {
      this.restartTimer = null;
      if (!this.port && !this.connecting && !(await this.ensure())) this.#restartIfWanted();
    }, delay);
  }

  #setState(state) {
    this.state = state;
    this.onStatus?.(state);
  }

  request(method, params = {}, { onSent } = {}) {
    if (!this.port) return Promise.reject(rpcError(ErrorCode.SERVER_UNAVAILABLE, this.state.hostError ?? "native host not connected"));
    return this.#send(this.port, method, params, onSent);
  }

  cancel(id) {
    this.notify("$/cancelRequest", { id });
  }

  notify(method, params) {
    try {
      this.port?.postMessage({ jsonrpc: "2.0", method, params });
    } catch {
      // The port closed under us; the disconnect handler reports it.
    }
  }

  // The host's own requests (the agent gateway's): answered like any JSON-RPC request.
  async #answer(port, { id, method, params }) {
    let reply;
    try {
      reply = { jsonrpc: "2.0", id, result: await this.onRequest(method, params ?? {}) };
    } catch (e) {
      reply = { jsonrpc: "2.0", id, error: e.rpc ?? { code: ErrorCode.INTERNAL_ERROR, message: String(e.message ?? e) } };
    }
    try {
      port.postMessage(reply);
    } catch {
      // The host went away while the request ran; nobody is left to answer.
    }
  }

  #send(port, method, params, onSent) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        port.postMessage({ jsonrpc: "2.0", id, method, params });
        onSent?.(id);
      } catch (e) {
        this.pending.delete(id);
        reject(rpcError(ErrorCode.SERVER_UNAVAILABLE, String(e.message)));
      }
    });
  }

  #receive(msg) {
    if (msg.method === "$/chunk") return this.#chunk(msg.params);
    if (msg.method && msg.id !== undefined && msg.id !== null) return this.#answer(this.port, msg);
    if (msg.method) {
      if (msg.method === "notifications/servers") this.state = { ...this.state, servers: msg.params.servers };
      return this.onNotification?.(msg.method, msg.params);
    }
    const waiter = this.pending.get(msg.id);
    if (!waiter) return;
    this.pending.delete(msg.id);
    if (msg.error) waiter.reject(rpcError(msg.error.code, msg.error.message, msg.error.data));
    else waiter.resolve(msg.result);
  }

  // Responses over Chrome's 1 MiB host→browser limit arrive as ordered slices of the response JSON.
  #chunk({ id, seq, last, data }) {
    const parts = this.chunks.get(id) ?? [];
    parts[seq] = data;
    this.chunks.set(id, parts);
    if (!last) return;
    this.chunks.delete(id);
    try {
      this.#receive(JSON.parse(parts.join("")));
    } catch (e) {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      waiter?.reject(rpcError(ErrorCode.PARSE_ERROR, `unreadable chunked response: ${e.message}`));
    }
  }
}

export function rpcError(code, message, data) {
  const err = new Error(message);
  err.rpc = { code, message, ...(data === undefined ? {} : { data }) };
  return err;
}
