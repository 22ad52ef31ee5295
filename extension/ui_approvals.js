// The popup's agent gateway row: the switch "Let agents on this computer use Tabgate" and the requests agents
// are waiting on (Allow once / Allow for this session / Deny). Text from agents goes in with textContent only.
import { $, el, clear, send, formatTime } from "./ui_dom.js";

const DECISIONS = [
  ["once", "Allow once"],
  ["session", "Allow for this session"],
  ["deny", "Deny"],
];

export function renderGatewaySwitch(config) {
  $("gateway-agents").checked = config.gateway === true;
}

let shown = ""; // the ids on screen: an unchanged list is not rebuilt under the person's pointer

export function renderApprovals(pending) {
  const key = pending.map((request) => request.id).join(" ");
  if (key === shown) return;
  shown = key;
  const list = $("approvals");
  list.hidden = !pending.length;
  clear(
    list,
    pending.map((request) =>
      el(
        "li",
        { class: "approval", dataset: { approval: String(request.id) } },
        el(
          "div",
          { class: "approval-head" },
          el("strong", { class: "approval-client" }, String(request.client)),
          el("span", { class: "muted" }, ` wants to act${request.site ? ` on ${request.site}` : ""}`),
          el("span", { class: "muted" }, ` · ${formatTime(request.requestedAt)}`),
        ),
        el("div", { class: "approval-summary" }, String(request.summary)),
        el(
          "div",
          { class: "approval-actions" },
          DECISIONS.map(([decision, label]) =>
            el(
              "button",
              {
                type: "button",
                class: decision === "deny" ? "deny" : "allow",
                dataset: { decision },
                onclick: () => send({ type: "approval/answer", id: request.id, decision }),
              },
              label,
            ),
          ),
        ),
      ),
    ),
  );
}

export async function mountGateway() {
  $("gateway-agents").addEventListener("change", async (event) => {
    const config = await send({ type: "config/set", patch: { gateway: event.target.checked } });
    if (!config.error) renderGatewaySwitch(config);
  });
  const [config, approvals] = await Promise.all([send({ type: "config/get" }), send({ type: "approvals" })]);
  if (!config.error) renderGatewaySwitch(config);
  if (approvals.pending) renderApprovals(approvals.pending);
}
