// The options page's agent section: every agent seen since the browser started, named `name — executable`
// (trust and grants bind to the executable), its tabs (shared ones can be taken back), what it may do
// without asking for the rest of its session (its grants), "act without asking", Stop and Forget; and the
// switches for the gateway, the MCP tools offered to agents, and pausing every agent's acting calls.
import { $, el, clear, send } from "./ui_dom.js";

async function setTrusted(executable, trusted) {
  const config = await send({ type: "config/get" });
  const others = (config.gatewayTrusted ?? []).filter((e) => e !== executable);
  await send({ type: "config/set", patch: { gatewayTrusted: trusted ? [...others, executable] : others } });
  await renderAgents();
}

async function act(message) {
  await send(message);
  await renderAgents();
}

function tabRow(agent, tab) {
  return el(
    "li",
    { dataset: { tab: String(tab.tabId) } },
    `${tab.title || tab.url} `,
    el("span", { class: "muted" }, `(tab ${tab.tabId}${tab.shared ? ", shared by you" : ""})`),
    tab.shared
      ? el("button", { type: "button", class: "link", onclick: () => act({ type: "agents/share", id: agent.id, tabId: tab.tabId, shared: false }) }, " Stop sharing")
      : null,
  );
}

function agentRow(agent) {
  const state = `${agent.version} · ${agent.connected ? "connected" : "gone"} · ${agent.running.length} running · ${agent.pending.length} waiting`;
  return el(
    "li",
    { class: "agent", dataset: { agent: agent.id } },
    el("strong", {}, `${agent.name} — ${agent.executable}`),
    el("span", { class: "muted" }, ` ${state}`),
    el("div", { class: "muted" }, agent.grants.length ? `Allowed this session: ${agent.grants.join(", ")}` : "No session grants."),
    agent.tabs.length ? el("ul", { class: "agent-tabs" }, agent.tabs.map((tab) => tabRow(agent, tab))) : el("div", { class: "muted" }, "No tabs."),
    el(
      "label",
      { class: "check" },
      el("input", { type: "checkbox", checked: agent.trusted, onchange: (event) => setTrusted(agent.executable, event.target.checked) }),
      "Act without asking",
    ),
    el("button", { type: "button", class: "link", dataset: { stop: agent.id }, onclick: () => act({ type: "agents/stop", id: agent.id }) }, "Stop"),
    el("button", { type: "button", class: "link", dataset: { forget: agent.id }, onclick: () => act({ type: "agents/forget", id: agent.id }) }, "Forget"),
  );
}

export async function renderAgents() {
  const [config, { agents = [], paused = false }] = await Promise.all([send({ type: "config/get" }), send({ type: "agents" })]);
  $("gateway-on").checked = config.gateway === true;
  $("gateway-mcp").checked = config.gatewayMcp === true;
  $("agents-paused").checked = paused;
  clear($("agents"), agents.length ? agents.map(agentRow) : el("li", { class: "muted" }, "No agent has connected since the browser started."));
}

export function mountAgents() {
  $("gateway-on").addEventListener("change", (e) => send({ type: "config/set", patch: { gateway: e.target.checked } }));
  $("gateway-mcp").addEventListener("change", (e) => send({ type: "config/set", patch: { gatewayMcp: e.target.checked } }));
  $("agents-paused").addEventListener("change", (e) => act({ type: "agents/pause", paused: e.target.checked }));
  return renderAgents();
}
