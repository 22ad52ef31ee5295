// Status in plain words, shared by the popup and the options page: what each state means and what to do.
import { HostPort, PortState } from "../port_states.js";

export const PYTHON_TEXT = {
  booting: "Python booting…",
  ready: "Python ready",
  failed: "Python failed",
};

export const HOST_TEXT = {
  [PortState.CONNECTED]: "host connected",
  [PortState.NOT_INSTALLED]: "host not installed",
  [PortState.FORBIDDEN]: "host refuses this extension",
  [PortState.EXITED]: "host exited",
  [PortState.ERROR]: "host error",
};

export const HOST_FIX = {
  [PortState.NOT_INSTALLED]: "Install the host: tabgate-host install (see README)",
  [PortState.FORBIDDEN]: "The host's allowed_origins does not list this extension: run tabgate-host install again",
  [PortState.EXITED]: "The host stopped; it restarts on the next call. If it keeps stopping, run tabgate-host doctor",
  [PortState.ERROR]: "Run tabgate-host doctor to see what is wrong",
};

// What `tabgate-host doctor` would say about the connection, in a sentence.
export const HOST_SENTENCE = {
  [PortState.CONNECTED]: "The native host is running and answering.",
  [PortState.NOT_INSTALLED]: `Chromium cannot find the native host ${HostPort.NAME}: its manifest is not installed for this browser.`,
  [PortState.FORBIDDEN]: "The native host is installed, but its manifest does not allow this extension to start it.",
  [PortState.EXITED]: "The native host started and then stopped.",
  [PortState.ERROR]: "The native host could not be reached.",
};

export const SERVER_TEXT = {
  starting: "starting",
  ready: "ready",
  failed: "failed",
  disabled: "disabled",
};

// A server waiting for the person's sign-in is not broken: its row says so instead of "failed".
export function serverState(srv) {
  if (srv.auth === "required" || srv.auth === "signingIn") return { key: "signin", text: "sign-in needed" };
  return { key: String(srv.status), text: SERVER_TEXT[srv.status] ?? String(srv.status) };
}

export function describeStatus(s) {
  const py = PYTHON_TEXT[s.python] ?? `Python ${s.python}`;
  const host = HOST_TEXT[s.host] ?? `host ${s.host}`;
  return `${py} · ${host}`;
}

// The one-line fix shown under the status line, or "" when nothing needs fixing.
export function statusFix(s) {
  if (s.python === "failed") return `Python did not start: ${s.pythonError ?? "unknown error"}. Reload the extension.`;
  const fix = HOST_FIX[s.host];
  if (!fix) return "";
  return s.host === PortState.ERROR && s.hostError ? `${s.hostError}. ${fix}` : fix;
}

export function serverToolCount(server) {
  if (Array.isArray(server.tools)) return server.tools.length;
  if (typeof server.tools === "number") return server.tools;
  return null;
}
