// Tabgate popup: draws what the service worker reports and sends what the person asks for. The worker records
// calls, so the popup may close at any time; it reads recent history once, then the worker pushes each change
// (after a restart, only what changed). Text from tools, servers and the host goes in as textContent (ui_dom.el).
import { $, el, clear, send, subscribe } from "./ui_dom.js";
import { describeStatus, statusFix, serverState, serverToolCount } from "./ui_status.js";
import { ToolForm } from "./ui_form.js";
import { renderResult } from "./ui_result.js";
import { renderSiteAccess } from "./ui_site_access.js";
import { mountAgentsView, onAgentsEvent } from "./ui_agents.js";
import { toolTitle, toolMarks } from "./ui_tools.js";
import { ToolList } from "./ui_tool_list.js";
import { PortState } from "../port_states.js";
import { UiTiming } from "../ui_timings.js";
import { mountElicitations, onElicitationEvent } from "./ui_elicit.js";
import { showServer, closeServer, onServerEvent } from "./ui_server_view.js";
import { pagerFor } from "./ui_pager.js";
import { serverError, signInControls } from "./ui_signin.js";
import { retryControl } from "./ui_retry.js";
import { HistoryList, HISTORY_SHOWN, entryArguments, noteResult } from "./ui_history.js";
import { refreshPlan, renderPlan } from "./ui_plan.js";
import { setCall, cancelCall, onProgress } from "./ui_call.js";
import { appFor, warmApps } from "./ui_app.js";
import { MessageType, EventType } from "../message_types.js";

const state = {
  status: null,
  tool: null, // the tool shown in the tool view
  form: null,
  viewing: null, // call_id whose result the tool view shows
  viewingRunning: false, // …and that call was running when last shown
  running: new Map(), // call_id → {name, source} for calls this popup started
  awaiting: new Set(), // call_ids whose answer was lost with a stopped service worker: the history will tell
  confirmed: new Set(), // destructive tools the person agreed to run while this popup is open
  cancelling: new Set(), // call_ids whose Cancel this popup sent: their error answer shows as cancelled
};

const toolList = new ToolList({ onOpen: (tool) => openTool(tool), listShown: () => !$("view-list").hidden });

// ------------------------------------------------------------------ status

function renderStatus(s) {
  state.status = s;
  $("status").textContent = describeStatus(s);
  document.body.dataset.python = s.python;
  document.body.dataset.host = s.host;
  const fix = statusFix(s);
  $("status-fix").textContent = fix;
  $("status-fix").hidden = !fix;

  const connected = s.host === PortState.CONNECTED;
  $("mcp-row").hidden = !connected;
  $("mcp-tools").checked = s.mcpTools === true;
  $("mcp-note").textContent = connected && !s.mcpTools ? "off: MCP tools are not offered" : "";

  const servers = connected ? (s.servers ?? []) : [];
  $("servers").hidden = !servers.length;
  $("no-servers").hidden = !connected || servers.length > 0;
  $("reconnect").hidden = s.host !== PortState.EXITED;
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
        retryControl(srv, () => renderStatus(state.status)),
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
  if (s.python === "ready" && key !== toolList.key) toolList.load(key);
  if (s.python === "booting") $("tools-note").textContent = "Python is starting; tools appear when it is ready.";
  if (s.python === "failed") $("tools-note").textContent = "Python failed to start, so no tools can run.";
}

let statusPoll = null;
async function refreshStatus() {
  let s;
  try {
    s = await send({ type: MessageType.STATUS });
  } catch (e) {
    $("status").textContent = `The service worker did not answer: ${e.message}`;
    return;
  }
  if (!s || s.error) return;
  renderStatus(s);
  clearTimeout(statusPoll);
  if (s.python === "booting") statusPoll = setTimeout(refreshStatus, UiTiming.BOOT_STATUS_POLL_MS);
}

// A ping makes the service worker start the host again; the status event then tells how that went.
async function reconnect() {
  const button = $("reconnect");
  button.disabled = true;
  button.textContent = "Reconnecting…";
  try {
    const answer = await send({ type: MessageType.HOST_REQUEST, method: "ping" });
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
    const config = await send({ type: MessageType.CONFIG_SET, patch: { mcpTools: on } });
    if (config?.error) throw new Error(config.error.message);
    input.checked = config.mcpTools === true;
  } catch (e) {
    input.checked = !on;
    $("mcp-note").textContent = `Could not save: ${e.message}`;
  } finally {
    input.disabled = false;
  }
  await refreshStatus();
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
  setCall(state, null);
  showView("tool");
  warmApps(tool);
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

// A tool Python says needs a yes runs only after the person says it, once per tool while the popup is open.
function run(tool, args) {
  if (tool.needsYes && !state.confirmed.has(tool.name)) askToRun(tool, args);
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
  setCall(state, callId);
  state.form.runButton.disabled = true;
  clear($("result"), renderResult({ name: tool.name, status: "running" }));
  $("result").scrollIntoView({ block: "nearest" });
  const started = performance.now();
  let answer;
  try {
    answer = await send({ type: MessageType.DISPATCH, item });
  } catch {
    // Chrome stopped the service worker mid-call and closed the channel: the call's history entry says how it
    // ended (the next worker marks it interrupted), so watch for that instead of showing Chrome's error.
    state.running.delete(callId);
    awaitOutcome(callId);
    return;
  }
  state.running.delete(callId);
  if (state.viewing === callId) {
    setCall(state, null);
    const cancelled = state.cancelling.has(callId);
    clear(
      $("result"),
      renderResult({ name: tool.name, answer, cancelled, durationMs: performance.now() - started }),
      pagerFor(args, answer, (page) => {
        state.form?.setArguments(page);
        run(tool, page);
      }),
      appFor(tool, args, answer, { cancelled }),
    );
    if (state.form) state.form.runButton.disabled = false;
    $("result").scrollIntoView({ block: "nearest" });
  }
}

// ------------------------------------------------------------------ history (the list is ui_history.js)

const recent = new HistoryList({
  viewing: () => state.viewing,
  kept: () => [state.viewing, ...state.awaiting],
  onOpen: (entry) => openEntry(entry),
  afterRender: () => {
    // The entry the tool view shows finished while we watched it (perhaps started in an earlier popup).
    if (state.viewingRunning && !state.running.has(state.viewing)) {
      const viewed = recent.entries.get(state.viewing);
      if (viewed && viewed.status !== "running") showEntryResult(viewed);
    }
  },
});

async function awaitOutcome(callId) {
  state.awaiting.add(callId);
  if (state.viewing === callId) $("progress-text").textContent = "The service worker restarted; waiting for the outcome…";
  // Everything changed since this popup last heard of the call: this wakes the next worker, which has marked
  // the entry first. What this popup was pushed by the stopped worker may never have reached the storage.
  const since = Math.min(recent.seen, recent.entries.get(callId)?.changedAt ?? 0);
  const entries = await recent.fetch({ since });
  if (!entries) return; // the service worker is restarting: the events port reconnects and this runs again
  const entry = entries.find((e) => e.id === callId);
  if (entry && entry.status !== "running") showOutcome(entry);
  else if (!entry) unrecorded(callId);
}

// The stopped worker never stored the call, so nothing will say more.
function unrecorded(callId) {
  state.awaiting.delete(callId);
  recent.forget(callId);
  if (state.viewing !== callId) return;
  setCall(state, null);
  const note = "The service worker stopped before it recorded this call, so its outcome is unknown.";
  clear($("result"), noteResult(state.tool?.name ?? "", "interrupted", note));
}

function showOutcome(entry) {
  state.awaiting.delete(entry.id);
  if (state.viewing === entry.id) showEntryResult(entry);
}

function onHistoryEntry(entry) {
  recent.pushed(entry);
  if (state.awaiting.has(entry.id) && entry.status !== "running") showOutcome(entry);
}

function showEntryResult(entry) {
  if (entry.status !== "running") {
    setCall(state, null);
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

function openEntry(entry) {
  const tool = toolList.find(entry.name);
  if (tool) openTool(tool, { args: entryArguments(entry.item) ?? undefined, focus: false });
  else openUnknownTool(entry.name);
  const running = entry.status === "running";
  if (running) setCall(state, entry.id);
  else state.viewing = entry.id;
  showEntryResult(entry);
  recent.render();
  $("result").scrollIntoView({ block: "nearest" });
  $("back").focus();
}

// ------------------------------------------------------------------ wiring

function onEvent(e) {
  if (e) [onElicitationEvent, onServerEvent, onAgentsEvent].forEach((heard) => heard(e));
  switch (e?.type) {
    case EventType.STATUS: {
      const { type: _, ...s } = e;
      renderStatus(s);
      return;
    }
    case EventType.PROGRESS:
      onProgress(state, e);
      return;
    case EventType.PLAN_UPDATE:
      renderPlan(e);
      return;
    case EventType.HISTORY:
      onHistoryEntry(e.entry);
      return;
    case EventType.HISTORY_REMOVED:
      recent.removed(e.ids ?? []);
      return;
    case EventType.RECONNECTED:
      refreshStatus();
      recent.fetch({ since: recent.seen });
      for (const callId of state.awaiting) awaitOutcome(callId);
      return;
    default:
  }
}

$("back").addEventListener("click", backToList);
$("server-back").addEventListener("click", backToList);
$("cancel").addEventListener("click", () => cancelCall(state));
$("reconnect").addEventListener("click", reconnect);
$("confirm-run").addEventListener("click", () => confirmRun(true));
$("confirm-no").addEventListener("click", () => confirmRun(false));
$("mcp-tools").addEventListener("change", (e) => setMcpTools(e.target.checked));
$("open-options").addEventListener("click", () => chrome.runtime.openOptionsPage());
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("view-server").hidden) return backToList();
  if (e.key !== "Escape" || $("view-tool").hidden) return;
  if (!$("confirm").hidden) confirmRun(false);
  else backToList();
});

subscribe(onEvent);
refreshStatus();
recent.fetch({ limit: HISTORY_SHOWN });
refreshPlan();
renderSiteAccess();
mountAgentsView();
$("tool-filter").focus();
mountElicitations(); // after the filter's focus: a waiting question takes it
