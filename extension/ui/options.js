// Options page: the mcpTools switch, which tools are disabled, and the host's diagnostics in plain words.
// Server-provided names and messages go in with textContent (ui_dom.el), never as HTML.
import { $, el, clear, send, subscribe } from "./ui_dom.js";
import { HOST_FIX, HOST_SENTENCE, PYTHON_TEXT, serverState, serverToolCount } from "./ui_status.js";
import { serverError, signInControls } from "./ui_signin.js";
import { retryControl } from "./ui_retry.js";
import { mountAgents, renderAgents } from "./ui_agents.js";
import { mountActivity, renderActivity } from "./ui_activity.js";
import { MessageType, EventType } from "../message_types.js";
import { PortState } from "../port_states.js";
import { UiTiming } from "../ui_timings.js";

const GROUPS = { builtin: "Built-in", browser: "Browser" };
const state = { config: { mcpTools: false, disabledTools: [] }, tools: [], status: null };

function errorText(answer) {
  return String(answer?.error?.message ?? "no answer");
}

async function saveConfig(patch, note) {
  const answer = await send({ type: MessageType.CONFIG_SET, patch });
  if (!answer || answer.error) throw new Error(errorText(answer));
  state.config = { ...state.config, ...answer };
  flash(note, "Saved");
  return answer;
}

const flashTimers = new Map();
function flash(node, text, isError = false) {
  node.textContent = text;
  node.classList.toggle("diag-error", isError);
  clearTimeout(flashTimers.get(node));
  if (!isError) flashTimers.set(node, setTimeout(() => (node.textContent = ""), UiTiming.CONFIRMATION_MS));
}

// ------------------------------------------------------------------ tools

async function loadTools() {
  const [config, tools] = await Promise.all([send({ type: MessageType.CONFIG_GET }), send({ type: MessageType.TOOLS })]);
  if (config && !config.error) state.config = config;
  $("mcp-tools").checked = state.config.mcpTools === true;
  if (!tools || tools.error || !Array.isArray(tools.tools)) {
    clear($("tool-checks"), el("p", { class: "diag-error" }, `Could not list the tools: ${tools ? errorText(tools) : "no answer"}`));
    return;
  }
  state.tools = tools.tools;
  renderTools();
}

function renderTools() {
  const disabled = new Set(state.config.disabledTools ?? []);
  const offered = new Set(state.tools.map((t) => t.name));
  const groups = new Map();
  const notOffered = [...disabled].filter((name) => !offered.has(name)).sort();
  if (notOffered.length) groups.set("disabled", { label: "Disabled", names: notOffered });
  for (const tool of state.tools) {
    const key = tool.source === "mcp" ? `mcp:${tool.server ?? ""}` : String(tool.source);
    const label = tool.source === "mcp" ? `MCP · ${tool.server ?? ""}` : (GROUPS[tool.source] ?? String(tool.source));
    if (!groups.has(key)) groups.set(key, { label, names: [] });
    groups.get(key).names.push(tool.name);
  }
  let n = 0;
  const sections = [...groups].map(([key, g]) => {
    const headingId = `tg-${n++}`;
    return el(
      "section",
      { class: "tool-group", dataset: { group: key }, "aria-labelledby": headingId },
      el("h2", { id: headingId }, g.label),
      g.names.map((name) => {
        const id = `tool-${n++}`;
        const description = state.tools.find((t) => t.name === name)?.description ?? "";
        return el(
          "div",
          { class: "check tool-check", dataset: { tool: String(name) }, title: String(description) },
          el("input", { type: "checkbox", id, checked: !disabled.has(name), onchange: (e) => toggleTool(name, e.target) }),
          el("label", { for: id }, String(name)),
        );
      }),
    );
  });
  const focused = document.activeElement?.closest?.(".tool-check")?.dataset.tool;
  clear($("tool-checks"), sections.length ? sections : el("p", { class: "muted" }, "No tools are offered."));
  applyFilter();
  if (focused !== undefined)
    [...$("tool-checks").querySelectorAll(".tool-check")].find((r) => r.dataset.tool === focused)?.querySelector("input").focus();
}

async function toggleTool(name, input) {
  const disabled = new Set(state.config.disabledTools ?? []);
  if (input.checked) disabled.delete(name);
  else disabled.add(name);
  input.disabled = true;
  try {
    await saveConfig({ disabledTools: [...disabled] }, $("tools-saved"));
  } catch (e) {
    input.checked = !input.checked;
    flash($("tools-saved"), `Could not save: ${e.message}`, true);
  } finally {
    input.disabled = false;
  }
}

// The same filter as the popup's: Python says which tools match (`tools/filter`); only the newest answer is drawn.
let filtering = null;
async function applyFilter() {
  const text = $("tool-filter").value;
  filtering = text;
  const answer = text.trim() ? await send({ type: MessageType.TOOLS_FILTER, text }).catch(() => null) : null;
  if (filtering !== text) return;
  const matching = answer?.matches ? new Set(answer.matches.map((m) => m.name)) : null;
  for (const group of $("tool-checks").querySelectorAll(".tool-group")) {
    let shown = 0;
    for (const row of group.querySelectorAll(".tool-check")) {
      row.hidden = matching !== null && !matching.has(row.dataset.tool);
      if (!row.hidden) shown++;
    }
    group.hidden = shown === 0;
  }
}

async function setMcpTools(input) {
  input.disabled = true;
  try {
    await saveConfig({ mcpTools: input.checked }, $("mcp-saved"));
  } catch (e) {
    input.checked = !input.checked;
    flash($("mcp-saved"), `Could not save: ${e.message}`, true);
  } finally {
    input.disabled = false;
  }
  loadTools();
}

// ------------------------------------------------------------------ diagnostics

function row(term, ...value) {
  return [el("dt", {}, term), el("dd", {}, ...value)];
}

function serverAdvice(srv) {
  if (srv.auth === "required") return "Press Sign in: the server's own sign-in page opens in a window, and the host keeps the tokens.";
  switch (srv.status) {
    case "failed":
      return "Check this server's entry in the host's config.toml (tabgate-host config check), then run tabgate-host doctor.";
    case "disabled":
      return "Disabled in the host's config (enabled = false).";
    case "starting":
      return "Starting; its tools appear once it is ready.";
    default:
      return "";
  }
}

function renderDiagnostics(s) {
  state.status = s;
  const items = [];
  items.push(
    ...row(
      "Python",
      PYTHON_TEXT[s.python] ?? String(s.python),
      s.python === "ready" && typeof s.bootMs === "number" ? ` (started in ${Math.round(s.bootMs)} ms)` : "",
      s.pythonError ? el("div", { class: "diag-error" }, String(s.pythonError)) : null,
    ),
  );
  items.push(
    ...row(
      "Native host",
      HOST_SENTENCE[s.host] ?? `State: ${String(s.host)}`,
      s.hostError && s.host !== PortState.CONNECTED ? el("div", { class: "muted" }, "Chromium said: ", String(s.hostError)) : null,
      HOST_FIX[s.host] ? el("div", { class: "fix" }, HOST_FIX[s.host]) : null,
    ),
  );
  if (s.hostInfo) items.push(...row("Host version", `${String(s.hostInfo.name ?? "")} ${String(s.hostInfo.version ?? "")}`.trim()));
  items.push(...row("Extension id", chrome.runtime.id, el("div", { class: "help" }, "The host's allowed_origins must list chrome-extension://", chrome.runtime.id, "/")));
  items.push(...row("MCP tools", s.mcpTools ? "on" : "off"));
  if (s.host === PortState.CONNECTED) {
    const servers = s.servers ?? [];
    const list = servers.length
      ? el(
          "ul",
          { class: "servers", id: "diag-servers" },
          servers.map((srv) => {
            const count = serverToolCount(srv);
            const advice = serverAdvice(srv);
            const shown = serverState(srv);
            return el(
              "li",
              { class: "server", dataset: { server: String(srv.name), status: String(srv.status) } },
              el("span", { class: `dot ${shown.key}`, "aria-hidden": "true" }),
              serverSwitch(srv),
              el("span", { class: "server-name" }, String(srv.name)),
              ` (${String(srv.transport ?? "")}): ${shown.text}`,
              count !== null ? `, ${count} tools` : "",
              signInControls(srv, () => renderDiagnostics(s)),
              retryControl(srv, () => renderDiagnostics(s)),
              serverError(srv),
              advice ? el("div", { class: "help" }, advice) : null,
            );
          }),
        )
      : el("span", {}, "No MCP servers are configured. Add [mcp_servers.<name>] to the host's config.toml (tabgate-host config path shows where).");
    items.push(...row("MCP servers", list));
  }
  clear($("diagnostics"), el("dl", { id: "diag" }, items));
}

// The person's per-server switch: the host writes `enabled` into its config and starts or stops the server;
// the status event that follows redraws the list.
function serverSwitch(srv) {
  const name = String(srv.name);
  const input = el("input", {
    type: "checkbox",
    role: "switch",
    class: "server-switch",
    checked: srv.status !== "disabled",
    "aria-label": `Use the MCP server ${name}`,
  });
  input.addEventListener("change", async () => {
    input.disabled = true;
    const reply = await send({ type: MessageType.SERVERS_ENABLE, server: name, enabled: input.checked }).catch(
      (e) => ({ error: { message: String(e.message) } }),
    );
    input.disabled = false;
    if (reply?.error) {
      input.checked = !input.checked;
      input.closest("li")?.append(el("div", { class: "server-error", role: "alert" }, `Could not switch ${name}: ${reply.error.message}`));
    }
  });
  return input;
}

async function refreshDiagnostics() {
  try {
    const s = await send({ type: MessageType.STATUS });
    if (s && !s.error) statusChanged(s);
  } catch (e) {
    clear($("diagnostics"), el("p", { class: "diag-error" }, `The service worker did not answer: ${e.message}`));
  }
}

// ------------------------------------------------------------------ wiring

// The tool list changes only when Python, the host, the servers or mcpTools do; a status event for anything
// else (a saved checkbox, say) must not rebuild the list under the person's keyboard focus.
let toolsKey = null;
let reloadTimer = null;
function statusChanged(s) {
  renderDiagnostics(s);
  const key = JSON.stringify([s.python, s.host, s.mcpTools, (s.servers ?? []).map((x) => [x.name, x.status, serverToolCount(x)])]);
  if (key === toolsKey) return;
  toolsKey = key;
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(loadTools, UiTiming.TOOL_LIST_RELOAD_MS);
}

subscribe((e) => {
  if (e?.type === EventType.STATUS) {
    const { type: _, ...s } = e;
    statusChanged(s);
  } else if (e?.type === EventType.RECONNECTED) {
    refreshDiagnostics();
    renderAgents();
    renderActivity();
  } else if (e?.type === EventType.AGENTS_CHANGED || e?.type === EventType.APPROVAL) renderAgents();
  else if (e?.type === EventType.AGENTS_ACTIVITY_CHANGED) renderActivity();
});
$("mcp-tools").addEventListener("change", (e) => setMcpTools(e.target));
$("tool-filter").addEventListener("input", applyFilter);
$("diag-refresh").addEventListener("click", refreshDiagnostics);

refreshDiagnostics();
mountAgents();
mountActivity();
