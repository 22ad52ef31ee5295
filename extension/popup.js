// Tabgate popup: renders what the service worker reports and sends what the person asks for. Calls are
// recorded by the service worker, so the popup may close at any time; on opening it reads the recent history
// once, then the service worker pushes each change (after a worker restart, only what changed is fetched).
// All text from tools, servers and the host goes in with textContent (ui_dom.el), never as HTML.
import { $, el, clear, send, subscribe, formatDuration, formatTime } from "./ui_dom.js";
import { describeStatus, statusFix, serverState, serverToolCount } from "./ui_status.js";
import { ToolForm } from "./ui_form.js";
import { renderResult } from "./ui_result.js";
import { renderSiteAccess } from "./ui_site_access.js";
import { mountGateway, renderApprovals } from "./ui_approvals.js";
import { toolTitle, isDeprecated, isDestructive, filterRank, filterWords } from "./ui_tools.js";
import { mountElicitations, onElicitationEvent } from "./ui_elicit.js";
import { showServer, closeServer, onServerEvent } from "./ui_server_view.js";
import { pagerFor } from "./ui_pager.js";
import { serverError, signInControls } from "./ui_signin.js";

const GROUPS = { builtin: "Built-in", browser: "Browser" };
const HISTORY_SHOWN = 30;
const BADGES = { done: "ok", running: "running", interrupted: "running" };

const state = {
  status: null,
  toolsKey: null, // what the tool list was loaded for; reloaded when python/host/servers/mcpTools change
  tools: [],
  tool: null, // the tool shown in the tool view
  form: null,
  viewing: null, // call_id whose result the tool view shows
  viewingRunning: false, // …and that call was running when last shown
  running: new Map(), // call_id → {name, source} for calls this popup started
  awaiting: new Set(), // call_ids whose answer was lost with a stopped service worker: the history will tell
  history: new Map(), // id → entry
  historySeen: 0, // the latest changedAt received: after a reconnection only newer changes are fetched
  toolOf: new WeakMap(), // tool button → its tool
  best: null, // the tool button the filter ranks first: Enter opens it
  enterPending: false, // Enter was pressed in the filter before the tools were listed: open the best then
  confirmed: new Set(), // destructive tools the person agreed to run while this popup is open
  cancelling: new Set(), // call_ids whose Cancel this popup sent: their error answer shows as cancelled
};

// ------------------------------------------------------------------ status

function renderStatus(s) {
  state.status = s;
  $("status").textContent = describeStatus(s);
  document.body.dataset.python = s.python;
  document.body.dataset.host = s.host;
  const fix = statusFix(s);
  $("status-fix").textContent = fix;
  $("status-fix").hidden = !fix;

  const connected = s.host === "connected";
  $("mcp-row").hidden = !connected;
  $("mcp-tools").checked = s.mcpTools === true;
  $("mcp-note").textContent = connected && !s.mcpTools ? "off: MCP tools are not offered" : "";

  const servers = connected ? (s.servers ?? []) : [];
  $("servers").hidden = !servers.length;
  $("no-servers").hidden = !connected || servers.length > 0;
  $("reconnect").hidden = s.host !== "exited";
  clear(
    $("servers"),
    servers.map((srv) => {
      const count = serverToolCount(srv);
      const shown = serverState(srv);
      return el(
        "li",
        { class: `server server-${shown.key}`, dataset: { server: String(srv.name), status: String(srv.status) } },
        el("span", { class: `dot ${shown.key}`, "aria-hidden": "true" }),
        el("span", { class: "server-name" }, String(srv.name)),
        el("span", { class: "muted" }, ` ${String(srv.transport ?? "")} · ${shown.text}`),
        count !== null && srv.status === "ready" ? el("span", { class: "muted" }, ` · ${count} tools`) : null,
        signInControls(srv, () => renderStatus(state.status)),
        el(
          "button",
          { type: "button", class: "link server-open", "aria-label": `Prompts and logs of ${srv.name}`, onclick: () => openServer(String(srv.name)) },
          "Prompts & logs",
        ),
        serverError(srv),
      );
    }),
  );

  // toolsVersion: a server's tools changed at run time (list_changed) even when their count did not.
  const key = JSON.stringify([s.python, s.host, s.mcpTools, servers.map((x) => [x.name, x.status, serverToolCount(x), x.toolsVersion])]);
  if (s.python === "ready" && key !== state.toolsKey) loadTools(key);
  if (s.python === "booting") $("tools-note").textContent = "Python is starting; tools appear when it is ready.";
  if (s.python === "failed") $("tools-note").textContent = "Python failed to start, so no tools can run.";
}

let statusPoll = null;
async function refreshStatus() {
  let s;
  try {
    s = await send({ type: "status" });
  } catch (e) {
    $("status").textContent = `The service worker did not answer: ${e.message}`;
    return;
  }
  if (!s || s.error) return;
  renderStatus(s);
  clearTimeout(statusPoll);
  if (s.python === "booting") statusPoll = setTimeout(refreshStatus, 500);
}

// A ping makes the service worker start the host again; the status event then tells how that went.
async function reconnect() {
  const button = $("reconnect");
  button.disabled = true;
  button.textContent = "Reconnecting…";
  try {
    const answer = await send({ type: "host/request", method: "ping" });
    if (answer?.error) throw new Error(String(answer.error.message ?? JSON.stringify(answer.error)));
  } catch (e) {
    $("status-fix").textContent = `Could not reconnect: ${e.message}. Run tabgate-host doctor to see why.`;
    $("status-fix").hidden = false;
    return; // the status still says exited; this message says more
  } finally {
    button.disabled = false;
    button.textContent = "Reconnect";
  }
  await refreshStatus();
}

async function setMcpTools(on) {
  const input = $("mcp-tools");
  input.disabled = true;
  try {
    const config = await send({ type: "config/set", patch: { mcpTools: on } });
    if (config?.error) throw new Error(typeof config.error === "string" ? config.error : JSON.stringify(config.error));
    input.checked = config.mcpTools === true;
  } catch (e) {
    input.checked = !on;
    $("mcp-note").textContent = `Could not save: ${e.message}`;
  } finally {
    input.disabled = false;
  }
  await refreshStatus();
}

// ------------------------------------------------------------------ tools

async function loadTools(key) {
  state.toolsKey = key;
  let answer;
  try {
    answer = await send({ type: "tools" });
  } catch (e) {
    answer = { error: e.message };
  }
  if (state.toolsKey !== key) return; // a newer load started
  if (!answer || answer.error || !Array.isArray(answer.tools)) {
    state.toolsKey = null;
    $("tools-note").textContent = `Could not list the tools: ${answer?.error ?? "no answer"}`;
    return;
  }
  state.tools = answer.tools;
  renderTools();
}

function groupOf(tool) {
  if (tool.source === "mcp") return { key: `mcp:${tool.server ?? ""}`, label: tool.server ? `MCP · ${tool.server}` : "MCP" };
  return { key: String(tool.source), label: GROUPS[tool.source] ?? String(tool.source) };
}

function renderTools() {
  const groups = new Map();
  for (const source of ["builtin", "browser"]) groups.set(source, { label: GROUPS[source], tools: [] });
  for (const tool of state.tools) {
    const g = groupOf(tool);
    if (!groups.has(g.key)) groups.set(g.key, { label: g.label, tools: [] });
    groups.get(g.key).tools.push(tool);
  }
  const sections = [];
  for (const [key, g] of groups) {
    if (!g.tools.length) continue;
    const headingId = `group-${sections.length}`;
    sections.push(
      el(
        "section",
        { class: "tool-group", dataset: { group: key }, "aria-labelledby": headingId },
        el("h2", { id: headingId }, g.label, el("span", { class: "count" }, ` (${g.tools.length})`)),
        el(
          "ul",
          { class: "tool-list" },
          g.tools.map((tool) => el("li", {}, toolButton(tool))),
        ),
      ),
    );
  }
  const focused = document.activeElement?.classList?.contains("tool") ? document.activeElement.dataset.tool : undefined;
  clear($("tool-groups"), sections);
  applyFilter();
  if (state.enterPending && !$("view-list").hidden) openBest();
  if (focused !== undefined)
    [...$("tool-groups").querySelectorAll("button.tool")].find((b) => b.dataset.tool === focused)?.focus();
}

function toolButton(tool) {
  const titled = toolTitle(tool) !== String(tool.name);
  const button = el(
    "button",
    { type: "button", class: "tool", dataset: { tool: String(tool.name) }, title: String(tool.description ?? ""), onclick: () => openTool(tool) },
    el("span", { class: "tool-name" }, toolTitle(tool), toolMarks(tool)),
    tool.source === "mcp" ? el("span", { class: "tool-server muted" }, `${String(tool.server ?? "")}${titled ? ` · ${String(tool.name)}` : ""}`) : null,
    el("span", { class: "tool-summary" }, firstLine(tool.description)),
  );
  state.toolOf.set(button, tool);
  return button;
}

// Text marks (not colour alone) for tools a person should think twice about.
function toolMarks(tool) {
  return [
    isDeprecated(tool) ? el("span", { class: "mark mark-deprecated" }, "deprecated") : null,
    isDestructive(tool) ? el("span", { class: "mark mark-destructive" }, "destructive") : null,
  ];
}

function firstLine(text) {
  return String(text ?? "").split("\n")[0];
}

// Shows the tools matching every word, each group's best first; the best of all gets Enter.
function applyFilter() {
  const words = filterWords($("tool-filter").value);
  let shown = 0;
  let best = null;
  for (const group of $("tool-groups").querySelectorAll(".tool-group")) {
    const list = group.querySelector(".tool-list");
    const rows = [...list.children].map((li, i) => {
      const button = li.querySelector("button.tool");
      const order = Number(li.dataset.order ?? i);
      li.dataset.order = String(order);
      return { li, button, order, rank: filterRank(state.toolOf.get(button), words) };
    });
    rows.sort((a, b) => (a.rank ?? 9) - (b.rank ?? 9) || a.order - b.order);
    if (rows.some((r, i) => list.children[i] !== r.li)) list.append(...rows.map((r) => r.li));
    let inGroup = 0;
    for (const r of rows) {
      r.li.hidden = r.rank === null;
      r.button.classList.remove("best");
      if (r.rank === null) continue;
      inGroup++;
      if (!best || r.rank < best.rank) best = r;
    }
    group.hidden = inGroup === 0;
    shown += inGroup;
  }
  state.best = words.length && best ? best.button : null;
  state.best?.classList.add("best");
  const total = state.tools.length;
  $("tools-note").textContent = !total
    ? "No tools are offered."
    : words.length
      ? shown
        ? `${shown} of ${total} tools match.`
        : "No tools match the filter."
      : `${total} tools.`;
}

// Enter in the filter: the best match, or the first tool shown when no word is typed.
function openBest() {
  state.enterPending = false;
  (state.best ?? $("tool-groups").querySelector("li:not([hidden]) button.tool"))?.click();
}

// ------------------------------------------------------------------ the tool view

function showView(name) {
  $("view-list").hidden = name !== "list";
  $("view-tool").hidden = name !== "tool";
  $("view-server").hidden = name !== "server";
  if (name !== "server") closeServer();
}

function openServer(name) {
  $("server-title").textContent = name;
  showServer(name, $("server-slot"));
  showView("server");
  $("server-back").focus();
}

function openTool(tool, { args, focus = true } = {}) {
  state.tool = tool;
  state.viewing = null;
  $("tool-title").textContent = toolTitle(tool);
  clear($("tool-marks"), toolMarks(tool));
  $("tool-origin").textContent =
    tool.source === "mcp" ? `${String(tool.name)} · from the MCP server ${String(tool.server ?? "")}` : "";
  $("tool-origin").hidden = tool.source !== "mcp";
  $("tool-desc").textContent = String(tool.description ?? "");
  hideConfirm();
  state.form = new ToolForm(tool, { onSubmit: (a) => run(tool, a) });
  if (args) state.form.setArguments(args);
  clear($("form-slot"), state.form.node);
  clear($("result"));
  setCall(null);
  showView("tool");
  if (focus) state.form.focusFirst();
}

function openUnknownTool(name) {
  state.tool = null;
  state.form = null;
  $("tool-title").textContent = String(name);
  clear($("tool-marks"));
  $("tool-origin").hidden = true;
  hideConfirm();
  $("tool-desc").textContent = "This tool is not offered now, so it cannot be run again from here.";
  clear($("form-slot"));
  showView("tool");
}

function backToList() {
  state.tool = null;
  state.form = null;
  state.viewing = null;
  showView("list");
  $("tool-filter").focus();
}

// The progress row for the call the tool view shows (null hides it).
function setCall(callId, { cancellable = true } = {}) {
  state.viewing = callId;
  state.viewingRunning = Boolean(callId);
  $("call").hidden = !callId;
  const progress = $("progress");
  progress.removeAttribute("value");
  progress.removeAttribute("max");
  $("progress-text").textContent = callId ? "Running…" : "";
  $("cancel").hidden = !cancellable;
  $("cancel").disabled = false;
  if (state.form) state.form.runButton.disabled = false;
}

// A destructive tool runs only after the person says yes, once per tool while the popup is open.
function run(tool, args) {
  if (isDestructive(tool) && !state.confirmed.has(tool.name)) askToRun(tool, args);
  else dispatch(tool, args);
}

let confirmed = null; // what "Run it" runs
function askToRun(tool, args) {
  confirmed = () => {
    state.confirmed.add(tool.name);
    dispatch(tool, args);
  };
  $("confirm-text").textContent = `“${toolTitle(tool)}” may change or delete data (its server marks it destructive). Run it?`;
  $("confirm").hidden = false;
  $("confirm-no").focus();
}

function hideConfirm() {
  confirmed = null;
  $("confirm").hidden = true;
}

function confirmRun(yes) {
  const go = confirmed;
  hideConfirm();
  if (yes && go) go();
  else state.form?.runButton.focus();
}

async function dispatch(tool, args) {
  const callId = `popup-${crypto.randomUUID()}`;
  const item = { type: "function_call", name: tool.name, arguments: JSON.stringify(args), call_id: callId };
  state.running.set(callId, { name: tool.name, source: tool.source });
  setCall(callId, { cancellable: tool.source === "mcp" });
  state.form.runButton.disabled = true;
  clear($("result"), renderResult({ name: tool.name, status: "running" }));
  $("result").scrollIntoView({ block: "nearest" });
  const started = performance.now();
  let answer;
  try {
    answer = await send({ type: "dispatch", item });
  } catch {
    // Chrome stopped the service worker mid-call and closed the channel: the call's history entry says how it
    // ended (the next worker marks it interrupted), so watch for that instead of showing Chrome's error.
    state.running.delete(callId);
    awaitOutcome(callId);
    return;
  }
  state.running.delete(callId);
  if (state.viewing === callId) {
    setCall(null);
    const cancelled = state.cancelling.has(callId);
    clear(
      $("result"),
      renderResult({ name: tool.name, answer, cancelled, durationMs: performance.now() - started }),
      pagerFor(tool.name, args, answer, (page) => {
        state.form?.setArguments(page);
        run(tool, page);
      }),
    );
    if (state.form) state.form.runButton.disabled = false;
    $("result").scrollIntoView({ block: "nearest" });
  }
}

async function cancel() {
  const callId = state.viewing;
  if (!callId) return;
  $("cancel").disabled = true;
  $("progress-text").textContent = "Cancelling…";
  state.cancelling.add(callId);
  try {
    const answer = await send({ type: "cancel", call_id: callId });
    if (!answer?.cancelled) $("progress-text").textContent = "This call cannot be cancelled (it is not a running MCP call).";
  } catch (e) {
    $("progress-text").textContent = `Cancel failed: ${e.message}`;
  }
}

function onProgress(e) {
  if (e.call_id !== state.viewing) return;
  const progress = $("progress");
  const hasTotal = typeof e.total === "number" && e.total > 0;
  if (hasTotal) {
    progress.max = e.total;
    progress.value = Math.min(Number(e.progress) || 0, e.total);
  } else {
    progress.removeAttribute("value"); // indeterminate: a bare count has no end to fill towards
  }
  const count = hasTotal ? `${e.progress} / ${e.total}` : `${e.progress ?? ""}`;
  $("progress-text").textContent = [count, e.message ? String(e.message) : ""].filter(Boolean).join(" · ");
}

// ------------------------------------------------------------------ history

async function awaitOutcome(callId) {
  state.awaiting.add(callId);
  if (state.viewing === callId) $("progress-text").textContent = "The service worker restarted; waiting for the outcome…";
  // Everything changed since this popup last heard of the call: this wakes the next worker, which has marked
  // the entry first. What this popup was pushed by the stopped worker may never have reached the storage.
  const since = Math.min(state.historySeen, state.history.get(callId)?.changedAt ?? 0);
  const entries = await fetchHistory({ since });
  if (!entries) return; // the service worker is restarting: the events port reconnects and this runs again
  const entry = entries.find((e) => e.id === callId);
  if (entry && entry.status !== "running") showOutcome(entry);
  else if (!entry) unrecorded(callId);
}

// The stopped worker never stored the call, so nothing will say more.
function unrecorded(callId) {
  state.awaiting.delete(callId);
  state.history.delete(callId);
  renderHistory();
  if (state.viewing !== callId) return;
  setCall(null);
  const note = "The service worker stopped before it recorded this call, so its outcome is unknown.";
  clear($("result"), noteResult(state.tool?.name ?? "", "interrupted", note));
}

function showOutcome(entry) {
  state.awaiting.delete(entry.id);
  if (state.viewing === entry.id) showEntryResult(entry);
}

// One request: the newest entries when the popup opens, then after a reconnection only what changed since.
// Answers the entries, or undefined when the service worker could not answer.
async function fetchHistory(query) {
  let entries;
  try {
    entries = await send({ type: "history", ...query });
  } catch {
    return undefined; // the service worker is restarting; the events port reconnects and asks again
  }
  if (!Array.isArray(entries)) return undefined;
  for (const entry of entries) noteEntry(entry);
  renderHistory();
  return entries;
}

function noteEntry(entry) {
  // A fetch's answer can arrive after a push of a newer version of the same entry.
  if ((state.history.get(entry.id)?.changedAt ?? -1) > (entry.changedAt ?? 0)) return;
  state.history.set(entry.id, entry);
  state.historySeen = Math.max(state.historySeen, entry.changedAt ?? 0);
}

function onHistoryEntry(entry) {
  noteEntry(entry);
  renderHistory();
  if (state.awaiting.has(entry.id) && entry.status !== "running") showOutcome(entry);
}

function onHistoryRemoved(ids) {
  for (const id of ids) state.history.delete(id);
  renderHistory();
}

async function clearHistory() {
  const button = $("history-clear");
  button.disabled = true;
  try {
    const answer = await send({ type: "history/clear" });
    if (typeof answer?.cleared !== "number") throw new Error(answer?.error ?? "no answer");
    state.history.clear();
    renderHistory();
  } catch (e) {
    $("history-empty").hidden = false;
    $("history-empty").textContent = `Could not clear the history: ${e.message}`;
  } finally {
    button.disabled = false;
  }
}

function entryArguments(item = {}) {
  if (typeof item.arguments === "string") {
    try {
      return JSON.parse(item.arguments);
    } catch {
      return null;
    }
  }
  return null;
}

function newestEntries() {
  return [...state.history.values()].sort((a, b) => b.startedAt - a.startedAt).slice(0, HISTORY_SHOWN);
}

// Rows are rebuilt only when their entry's status or the viewed call changes: a push redraws one row, not 30.
const historyRows = new Map(); // id → {key, node}

function historyRow(entry) {
  const key = `${entry.status}|${entry.finishedAt ?? ""}|${state.viewing === entry.id}`;
  const row = historyRows.get(entry.id);
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
        "aria-current": state.viewing === entry.id ? "true" : null,
        onclick: () => openEntry(state.history.get(entry.id) ?? entry),
      },
      el("span", { class: `badge ${BADGES[status] ?? "error"}` }, status),
      el("span", { class: "h-name" }, String(entry.name ?? "")),
      entry.caller ? el("span", { class: "muted h-caller" }, `by ${String(entry.caller)}`) : null,
      el("span", { class: "muted h-time" }, [formatTime(entry.startedAt), duration].filter(Boolean).join(" · ")),
    ),
  );
  historyRows.set(entry.id, { key, node });
  return node;
}

function renderHistory() {
  const shown = newestEntries();
  // What is not shown is forgotten (a push brings back any entry that changes), so the popup holds little.
  const kept = new Set([...shown.map((e) => e.id), state.viewing, ...state.awaiting]);
  for (const id of [...state.history.keys()]) if (!kept.has(id)) state.history.delete(id);
  const nodes = shown.map(historyRow);
  for (const id of [...historyRows.keys()]) if (!state.history.has(id)) historyRows.delete(id);
  $("history-empty").hidden = shown.length > 0;
  $("history-empty").textContent = "No calls yet.";
  const list = $("history");
  if (nodes.length !== list.children.length || nodes.some((node, i) => list.children[i] !== node)) clear(list, nodes);
  // The entry the tool view shows finished while we watched it (perhaps started in an earlier popup).
  if (state.viewingRunning && !state.running.has(state.viewing)) {
    const viewed = state.history.get(state.viewing);
    if (viewed && viewed.status !== "running") showEntryResult(viewed);
  }
}

function showEntryResult(entry) {
  if (entry.status !== "running") {
    setCall(null);
    state.viewing = entry.id;
    if (state.form) state.form.runButton.disabled = false;
  }
  if (entry.status !== "running" && entry.answer === undefined) {
    // Interrupted, or the answer could not be stored: the entry's note is all there is to show.
    clear($("result"), noteResult(entry.name, entry.status, entry.note ?? "The answer was not kept."));
    return;
  }
  clear(
    $("result"),
    renderResult({
      name: entry.name,
      answer: entry.answer,
      status: entry.status,
      cancelled: state.cancelling.has(entry.id),
      durationMs: entry.finishedAt && entry.startedAt ? entry.finishedAt - entry.startedAt : undefined,
    }),
    entry.truncated ? el("p", { class: "muted history-note" }, `Shortened for the history: the answer was ${entry.truncated.bytes} bytes.`) : null,
  );
}

// A result panel for an outcome without an answer to show (e.g. a call the service worker's stop interrupted).
function noteResult(name, status, note) {
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

function openEntry(entry) {
  const tool = state.tools.find((t) => t.name === entry.name);
  if (tool) openTool(tool, { args: entryArguments(entry.item) ?? undefined, focus: false });
  else openUnknownTool(entry.name);
  const running = entry.status === "running";
  if (running) setCall(entry.id, { cancellable: !tool || tool.source === "mcp" });
  else state.viewing = entry.id;
  showEntryResult(entry);
  renderHistory();
  $("result").scrollIntoView({ block: "nearest" });
  $("back").focus();
}

// ------------------------------------------------------------------ the plan (update_plan's last call)

const PLAN_MARK = { completed: "✓", in_progress: "▸", pending: "○" };

async function refreshPlan() {
  let answer;
  try {
    answer = await send({ type: "plan" });
  } catch {
    return;
  }
  if (answer && !answer.error) renderPlan(answer);
}

function renderPlan({ explanation, plan }) {
  const steps = Array.isArray(plan) ? plan : [];
  $("plan-section").hidden = !steps.length;
  $("plan-explanation").textContent = explanation ? String(explanation) : "";
  $("plan-explanation").hidden = !explanation;
  clear(
    $("plan"),
    steps.map((s) =>
      el(
        "li",
        { class: `plan-step ${String(s.status)}`, dataset: { status: String(s.status) } },
        el("span", { class: "plan-mark", "aria-hidden": "true" }, PLAN_MARK[s.status] ?? "•"),
        el("span", {}, String(s.step ?? "")),
        el("span", { class: "sr-only" }, ` (${String(s.status ?? "").replace("_", " ")})`),
      ),
    ),
  );
}

// ------------------------------------------------------------------ wiring

function onEvent(e) {
  if (e) onElicitationEvent(e);
  if (e) onServerEvent(e);
  switch (e?.type) {
    case "status": {
      const { type: _, ...s } = e;
      renderStatus(s);
      return;
    }
    case "progress":
      onProgress(e);
      return;
    case "approval":
      renderApprovals(e.pending ?? []);
      return;
    case "PlanUpdate":
      renderPlan(e);
      return;
    case "history":
      onHistoryEntry(e.entry);
      return;
    case "history/removed":
      onHistoryRemoved(e.ids ?? []);
      return;
    case "reconnected":
      refreshStatus();
      fetchHistory({ since: state.historySeen });
      for (const callId of state.awaiting) awaitOutcome(callId);
      return;
    default:
  }
}

$("tool-filter").addEventListener("input", applyFilter);
$("tool-filter").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  e.preventDefault();
  if (!state.tools.length) state.enterPending = true;
  else openBest();
});

$("back").addEventListener("click", backToList);
$("server-back").addEventListener("click", backToList);
$("cancel").addEventListener("click", cancel);
$("reconnect").addEventListener("click", reconnect);
$("confirm-run").addEventListener("click", () => confirmRun(true));
$("confirm-no").addEventListener("click", () => confirmRun(false));
$("mcp-tools").addEventListener("change", (e) => setMcpTools(e.target.checked));
$("history-clear").addEventListener("click", clearHistory);
$("open-options").addEventListener("click", () => chrome.runtime.openOptionsPage());
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("view-server").hidden) return backToList();
  if (e.key !== "Escape" || $("view-tool").hidden) return;
  if (!$("confirm").hidden) confirmRun(false);
  else backToList();
});

subscribe(onEvent);
refreshStatus();
fetchHistory({ limit: HISTORY_SHOWN });
refreshPlan();
renderSiteAccess();
mountGateway();
$("tool-filter").focus();
mountElicitations(); // after the filter's focus: a waiting question takes it
