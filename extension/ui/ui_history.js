// The popup's Recent calls: the newest entries of the service worker's history, read once when the popup opens,
// then kept current by pushes (after a reconnection only what changed since is fetched). What is not shown is
// forgotten, so the popup holds little; the tool view decides what opening an entry shows.
import { $, el, clear, send, formatDuration, formatTime } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

export const HISTORY_SHOWN = 30;
const BADGES = { done: "ok", running: "running", interrupted: "running" };

// `viewing()`: the id the tool view shows; `kept()`: ids to remember even when not shown; `onOpen(entry)`:
// the person clicked an entry; `afterRender()`: the list was drawn (the viewed entry may have finished).
export class HistoryList {
  constructor({ viewing, kept, onOpen, afterRender }) {
    this.entries = new Map(); // id → entry
    this.seen = 0; // the latest changedAt received: after a reconnection only newer changes are fetched
    this.rows = new Map(); // id → {key, node}: a push redraws one row, not 30
    Object.assign(this, { viewing, kept, onOpen, afterRender });
    $("history-clear").addEventListener("click", () => this.clear());
  }

  // One request; answers the entries, or undefined when the service worker could not answer (it is
  // restarting: the events port reconnects and the popup asks again).
  async fetch(query) {
    let entries;
    try {
      entries = await send({ type: MessageType.HISTORY, ...query });
    } catch {
      return undefined;
    }
    if (!Array.isArray(entries)) return undefined;
    for (const entry of entries) this.note(entry);
    this.render();
    return entries;
  }

  note(entry) {
    // A fetch's answer can arrive after a push of a newer version of the same entry.
    if ((this.entries.get(entry.id)?.changedAt ?? -1) > (entry.changedAt ?? 0)) return;
    this.entries.set(entry.id, entry);
    this.seen = Math.max(this.seen, entry.changedAt ?? 0);
  }

  pushed(entry) {
    this.note(entry);
    this.render();
  }

  removed(ids) {
    for (const id of ids) this.entries.delete(id);
    this.render();
  }

  forget(id) {
    this.entries.delete(id);
    this.render();
  }

  async clear() {
    const button = $("history-clear");
    button.disabled = true;
    try {
      const answer = await send({ type: MessageType.HISTORY_CLEAR });
      if (typeof answer?.cleared !== "number") throw new Error(answer?.error?.message ?? "no answer");
      this.entries.clear();
      this.render();
    } catch (e) {
      $("history-empty").hidden = false;
      $("history-empty").textContent = `Could not clear the history: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  }

  render() {
    const shown = [...this.entries.values()].sort((a, b) => b.startedAt - a.startedAt).slice(0, HISTORY_SHOWN);
    const kept = new Set([...shown.map((e) => e.id), ...this.kept()]);
    for (const id of [...this.entries.keys()]) if (!kept.has(id)) this.entries.delete(id);
    const nodes = shown.map((entry) => this.row(entry));
    for (const id of [...this.rows.keys()]) if (!this.entries.has(id)) this.rows.delete(id);
    $("history-empty").hidden = shown.length > 0;
    $("history-empty").textContent = "No calls yet.";
    const list = $("history");
    if (nodes.length !== list.children.length || nodes.some((node, i) => list.children[i] !== node)) clear(list, nodes);
    this.afterRender();
  }

  row(entry) {
    const viewed = this.viewing() === entry.id;
    const key = `${entry.status}|${entry.finishedAt ?? ""}|${viewed}`;
    const row = this.rows.get(entry.id);
    if (row?.key === key) return row.node;
    const duration = entry.finishedAt && entry.startedAt ? formatDuration(entry.finishedAt - entry.startedAt) : "";
    const status = String(entry.status ?? "");
    const node = el(
      "li",
      {},
      el(
        "button",
        {
          type: "button",
          class: "history-entry",
          dataset: { id: String(entry.id), status },
          "aria-current": viewed ? "true" : null,
          onclick: () => this.onOpen(this.entries.get(entry.id) ?? entry),
        },
        el("span", { class: `badge ${BADGES[status] ?? "error"}` }, status),
        el("span", { class: "h-name" }, String(entry.name ?? "")),
        entry.caller ? el("span", { class: "muted h-caller" }, `by ${String(entry.caller)}`) : null,
        el("span", { class: "muted h-time" }, [formatTime(entry.startedAt), duration].filter(Boolean).join(" · ")),
      ),
    );
    this.rows.set(entry.id, { key, node });
    return node;
  }
}

// The arguments a recorded call was made with, to fill its form again; null when they were not kept.
export function entryArguments(item = {}) {
  if (typeof item.arguments !== "string") return null;
  try {
    return JSON.parse(item.arguments);
  } catch {
    return null;
  }
}

// A result panel for an outcome without an answer to show (e.g. a call the service worker's stop interrupted).
export function noteResult(name, status, note) {
  return el(
    "div",
    { class: "result result-error", dataset: { kind: String(status) } },
    el(
      "div",
      { class: "result-head" },
      el("span", { class: `badge ${BADGES[status] ?? "error"}` }, String(status)),
      el("span", { class: "result-name" }, String(name ?? "")),
    ),
    el("div", { class: "result-body" }, el("p", { class: "history-note" }, String(note))),
  );
}
