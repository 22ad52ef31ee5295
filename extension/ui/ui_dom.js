// DOM helpers for the popup and options pages. Everything goes in through createElement and textContent:
// text from tools, servers and the host is untrusted and must never be parsed as HTML.
import { EventType } from "../message_types.js";
import { UiTiming } from "../ui_timings.js";

// el("button", {class: "x", type: "button", onclick: fn, dataset: {id}}, "text", childNode, ...)
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key in node && typeof node[key] !== "function" && !key.startsWith("aria")) node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const $ = (id) => document.getElementById(id);

// Saves a Blob as a file, the way a person expects: a download, never a navigation.
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), UiTiming.DOWNLOAD_URL_LIFE_MS);
}

export function send(message) {
  return chrome.runtime.sendMessage(message);
}

// The service worker can restart under us; the events port then disconnects and is opened again.
export function subscribe(onEvent) {
  let stopped = false;
  const open = () => {
    if (stopped) return;
    let port;
    try {
      port = chrome.runtime.connect({ name: "events" });
    } catch {
      setTimeout(open, UiTiming.EVENTS_RETRY_MS);
      return;
    }
    port.onMessage.addListener(onEvent);
    port.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      setTimeout(open, UiTiming.EVENTS_RECONNECT_MS);
      onEvent({ type: EventType.RECONNECTED });
    });
  };
  open();
  return () => (stopped = true);
}

export function formatDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function formatTime(ts) {
  if (typeof ts !== "number") return "";
  return new Date(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
