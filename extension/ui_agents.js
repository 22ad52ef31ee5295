// The options page's agent section: the agents seen in this browser session, what each may do without asking
// for the rest of its session (its grants), "act without asking" per agent, and whether MCP tools are offered.
import { $, el, clear, send } from "./ui_dom.js";

async function setTrusted(name, trusted) {
  const config = await send({ type: "config/get" });
  const others = (config.gatewayTrusted ?? []).filter((n) => n !== name);
  await send({ type: "config/set", patch: { gatewayTrusted: trusted ? [...others, name] : others } });
  await renderAgents();
}

export async function renderAgents() {
  const [config, { agents = [] }] = await Promise.all([send({ type: "config/get" }), send({ type: "gateway/agents" })]);
  $("gateway-on").checked = config.gateway === true;
  $("gateway-mcp").checked = config.gatewayMcp === true;
  clear(
    $("agents"),
    agents.length
      ? agents.map((agent) =>
          el(
            "li",
            { class: "agent", dataset: { agent: String(agent.name) } },
            el("strong", {}, String(agent.name)),
            el("span", { class: "muted" }, ` ${String(agent.version)} · ${agent.connected ? "connected" : "gone"} · ${agent.calls} calls`),
            el("div", { class: "muted" }, agent.grants.length ? `Allowed this session: ${agent.grants.join(", ")}` : "No session grants."),
            el(
              "label",
              { class: "check" },
              el("input", {
                type: "checkbox",
                checked: agent.actWithoutAsking,
                onchange: (event) => setTrusted(agent.name, event.target.checked),
              }),
              "Act without asking",
            ),
          ),
        )
      : el("li", { class: "muted" }, "No agent has connected since the browser started."),
  );
}

export function mountAgents() {
  $("gateway-on").addEventListener("change", (e) => send({ type: "config/set", patch: { gateway: e.target.checked } }));
  $("gateway-mcp").addEventListener("change", (e) => send({ type: "config/set", patch: { gatewayMcp: e.target.checked } }));
  return renderAgents();
}
