// The agents, as Python's `agents` answer describes them (contract §9), drawn in two places:
// - the popup's control room: each agent (its program first, then the name it gave itself, drawn apart by
//   `agentWho`; connected, trusted or why it cannot be), its tabs with *Stop
//   sharing*, its running calls in plain words with the time so far and *Stop*, how many of its requests
//   wait above, *Pause all agents*, and *Share this tab with …* for the person's active tab;
// - the options page's agent section: the same agents with their session grants, "act without asking",
//   Stop and Forget, and the switches for the gateway, the MCP tools offered to agents and the pause.
// Python decides every word shown of an agent's call and how each agent stands to the active tab; this file
// draws it. Text from agents and pages goes in with textContent only (ui_dom.el).
import { $, el, clear, send, formatDuration } from "./ui_dom.js";
import { agentWho, mountGateway, renderApprovals } from "./ui_approvals.js";
import { MessageType, EventType } from "../message_types.js";
import { UiTiming } from "../ui_timings.js";


// One of the person's controls; what Python refused is said in the popup's agents view (the options page has
// no place for it and logs it).
async function act(message, redraw) {
  const answer = await send(message);
  const refused = answer?.error ? String(answer.error.message ?? answer.error) : "";
  const shown = $("agents-error");
  if (shown) {
    shown.textContent = refused;
    shown.hidden = !refused;
  } else if (refused) console.warn("tabgate:", refused);
  await redraw();
}

function tabRow(agent, tab, redraw) {
  return el(
    "li",
    { class: "agent-tab", dataset: { tab: String(tab.tabId) } },
    el("span", { class: "agent-tab-title" }, tab.title || tab.url || `tab ${tab.tabId}`),
    el("span", { class: "muted" }, `${tab.site ? ` · ${tab.site}` : ""} · tab ${tab.tabId}${tab.shared ? ", shared by you" : ""}`),
    tab.shared
      ? el(
          "button",
          {
            type: "button",
            class: "link",
            dataset: { unshare: String(tab.tabId) },
            "aria-label": `Stop sharing tab ${tab.tabId} with ${agent.name}`,
            onclick: () => act({ type: MessageType.AGENTS_SHARE, id: agent.id, tabId: tab.tabId, shared: false }, redraw),
          },
          "Stop sharing",
        )
      : null,
  );
}

// ------------------------------------------------------------------ the popup's control room

function runningRow(call) {
  return el(
    "li",
    { class: "agent-call", dataset: { call: String(call.callId), waiting: String(call.waiting === true) } },
    el("span", { class: "agent-call-summary" }, String(call.summary)),
    el(
      "span",
      { class: "muted" },
      " · ",
      el("span", { class: "elapsed", dataset: { since: String(call.startedAt) } }, formatDuration(Date.now() - call.startedAt)),
      call.waiting ? " · waiting for your answer" : " so far",
    ),
  );
}

function agentCard(agent, redraw) {
  const busy = agent.running.length + agent.pending.length > 0;
  return el(
    "li",
    { class: "agent-card", dataset: { agent: agent.id, connected: String(agent.connected) } },
    el(
      "div",
      { class: "agent-head" },
      el("span", { class: `dot ${agent.connected ? "ready" : "off"}`, "aria-hidden": "true" }),
      el("strong", { class: "agent-label" }, ...agentWho(agent.program, agent.name)),
    ),
    el(
      "div",
      { class: "muted" },
      [agent.connected ? "connected" : "not connected", agent.trusted ? "trusted: acts without asking" : "asks before acting"].join(" · "),
      agent.pending.length ? ` · ${agent.pending.length} request(s) waiting above` : "",
    ),
    agent.notTrustable ? el("div", { class: "muted agent-untrustable" }, String(agent.notTrustable)) : null,
    agent.tabs.length
      ? el("ul", { class: "agent-tabs", "aria-label": `Tabs of ${agent.name}` }, agent.tabs.map((tab) => tabRow(agent, tab, redraw)))
      : el("div", { class: "muted" }, "No tabs."),
    agent.running.length
      ? el("ul", { class: "agent-calls", "aria-label": `Running calls of ${agent.name}` }, agent.running.map(runningRow))
      : null,
    busy
      ? el(
          "button",
          {
            type: "button",
            class: "danger agent-stop",
            dataset: { stop: agent.id },
            onclick: () => act({ type: MessageType.AGENTS_STOP, id: agent.id }, redraw),
          },
          `Stop ${agent.name}`,
        )
      : null,
  );
}

// "Share this tab with …": one button per connected agent; Python says how each stands to the active tab.
function shareButtons(agents, tab, redraw) {
  return agents
    .filter((agent) => agent.connected && agent.activeTab !== "own")
    .map((agent) => {
      const shared = agent.activeTab === "shared";
      return el(
        "button",
        {
          type: "button",
          class: "link",
          dataset: { shareAgent: agent.id, shared: String(shared) },
          title: agent.program,
          onclick: () => act({ type: MessageType.AGENTS_SHARE, id: agent.id, tabId: tab.id, shared: !shared }, redraw),
        },
        shared ? `Stop sharing this tab with ${agent.name}` : `Share this tab with ${agent.name}`,
      );
    });
}

let drawn = ""; // what is on screen: an unchanged answer is not rebuilt under the person's pointer

export async function renderAgentsView() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  const answer = await send(tab ? { type: MessageType.AGENTS, activeTabId: tab.id } : { type: MessageType.AGENTS });
  if (!answer || answer.error) return;
  const { agents = [], paused = false } = answer;
  const key = JSON.stringify([tab?.id, answer]);
  if (key !== drawn) {
    drawn = key;
    $("agents-view").hidden = !agents.length && !paused;
    const pause = $("agents-pause");
    pause.textContent = paused ? "Resume agents" : "Pause all agents";
    pause.setAttribute("aria-pressed", String(paused));
    $("agents-paused-note").hidden = !paused;
    const share = tab ? shareButtons(agents, tab, renderAgentsView) : [];
    clear($("agent-share"), share);
    $("agent-share").hidden = !share.length;
    clear($("agent-cards"), agents.map((agent) => agentCard(agent, renderAgentsView)));
  }
  for (const node of document.querySelectorAll("#agent-cards .elapsed")) {
    node.textContent = formatDuration(Date.now() - Number(node.dataset.since));
  }
}

// The popup's events about agents: their questions changed, or an agent came, went or changed its tabs.
export function onAgentsEvent(e) {
  if (e.type === EventType.APPROVAL) renderApprovals(e);
  if (e.type === EventType.APPROVAL || e.type === EventType.AGENTS_CHANGED) renderAgentsView();
}

// The gateway switch and the questions waiting (ui_approvals.js), then the agents themselves.
export function mountAgentsView() {
  mountGateway();
  $("agents-pause").addEventListener("click", () =>
    act({ type: MessageType.AGENTS_PAUSE, paused: $("agents-pause").getAttribute("aria-pressed") !== "true" }, renderAgentsView),
  );
  // Agents come and go with an event (agents/changed); their calls do not, so the view is asked again while
  // it shows agents (which also moves each call's time so far on).
  const tick = () => (!$("agents-view").hidden ? renderAgentsView() : Promise.resolve()).catch(() => {}).finally(() => setTimeout(tick, UiTiming.AGENTS_POLL_MS));
  renderAgentsView().finally(() => setTimeout(tick, UiTiming.AGENTS_POLL_MS));
}

// ------------------------------------------------------------------ the options page

// Python puts the entry that trusts the agent's program in the config or takes it out (an agent it gives no
// entry for, a bare interpreter, has no checkbox to tick).
async function setTrusted(id, trusted) {
  await act({ type: MessageType.AGENTS_TRUST, id, trusted }, renderAgents);
}

function agentRow(agent) {
  const state = `${agent.version} · ${agent.connected ? "connected" : "gone"} · ${agent.running.length} running · ${agent.pending.length} waiting`;
  return el(
    "li",
    { class: "agent", dataset: { agent: agent.id } },
    el("strong", {}, ...agentWho(agent.program, agent.name)),
    el("span", { class: "muted" }, ` ${state}`),
    el("div", { class: "muted" }, agent.grants.length ? `Allowed this session: ${agent.grants.join(", ")}` : "No session grants."),
    agent.tabs.length ? el("ul", { class: "agent-tabs" }, agent.tabs.map((tab) => tabRow(agent, tab, renderAgents))) : el("div", { class: "muted" }, "No tabs."),
    agent.trustEntry == null
      ? el("div", { class: "muted agent-untrustable" }, String(agent.notTrustable ?? ""))
      : el(
          "label",
          { class: "check" },
          el("input", { type: "checkbox", checked: agent.trusted, onchange: (event) => setTrusted(agent.id, event.target.checked) }),
          "Act without asking",
        ),
    el("button", { type: "button", class: "link", dataset: { stop: agent.id }, onclick: () => act({ type: MessageType.AGENTS_STOP, id: agent.id }, renderAgents) }, "Stop"),
    el("button", { type: "button", class: "link", dataset: { forget: agent.id }, onclick: () => act({ type: MessageType.AGENTS_FORGET, id: agent.id }, renderAgents) }, "Forget"),
  );
}

export async function renderAgents() {
  const [config, { agents = [], paused = false }] = await Promise.all([send({ type: MessageType.CONFIG_GET }), send({ type: MessageType.AGENTS })]);
  $("gateway-on").checked = config.gateway === true;
  $("gateway-mcp").checked = config.gatewayMcp === true;
  $("agents-paused").checked = paused;
  clear($("agents"), agents.length ? agents.map(agentRow) : el("li", { class: "muted" }, "No agent has connected since the browser started."));
}

export function mountAgents() {
  $("gateway-on").addEventListener("change", (e) => send({ type: MessageType.CONFIG_SET, patch: { gateway: e.target.checked } }));
  $("gateway-mcp").addEventListener("change", (e) => send({ type: MessageType.CONFIG_SET, patch: { gatewayMcp: e.target.checked } }));
  $("agents-paused").addEventListener("change", (e) => act({ type: MessageType.AGENTS_PAUSE, paused: e.target.checked }, renderAgents));
  return renderAgents();
}
