// The popup's agent gateway row: the switch "Let agents on this computer use Tabgate", the requests agents
// are waiting on (Allow once / Allow for this session / Deny), each naming the agent by its program and then,
// apart, the name it gave itself (`agentWho`), and, in Python's plain words, the action with its arguments,
// the tab and the site; and requests withdrawn because their agent went away. Text from agents goes in with
// textContent only.
import { $, el, clear, send, formatTime } from "./ui_dom.js";

// Who an agent is: the program the OS reports (Python's `program`: the executable, and for an interpreter what
// it runs) before the name the agent chose, each in its own element, so a name can never pass for the path.
export function agentWho(program, name) {
  return [el("code", { class: "agent-program" }, String(program)), el("span", { class: "agent-name" }, ` “${name}”`)];
}

const DECISIONS = [
  ["once", "Allow once"],
  ["session", "Allow for this session"],
  ["deny", "Deny"],
];

export function renderGatewaySwitch(config) {
  $("gateway-agents").checked = config.gateway === true;
}

let shown = ""; // the ids on screen: an unchanged list is not rebuilt under the person's pointer

export function renderApprovals(pending, withdrawn = []) {
  const key = [...pending.map((r) => r.id), "|", ...withdrawn.map((r) => r.id)].join(" ");
  if (key === shown) return;
  shown = key;
  const list = $("approvals");
  list.hidden = !pending.length && !withdrawn.length;
  clear(list, [
    ...pending.map((request) =>
      el(
        "li",
        { class: "approval", dataset: { approval: String(request.id) } },
        el(
          "div",
          { class: "approval-head" },
          el("strong", { class: "approval-client" }, ...agentWho(request.executable, request.agent)),
          el("span", { class: "muted" }, ` · ${formatTime(request.requestedAt)}`),
        ),
        el("div", { class: "approval-summary" }, String(request.summary)),
        el(
          "div",
          { class: "approval-actions" },
          // Python says when a question cannot be allowed for the session (its destination is unknown).
          DECISIONS.filter(([decision]) => decision !== "session" || request.sessionAllowed !== false).map(
            ([decision, label]) =>
            el(
              "button",
              {
                type: "button",
                class: decision === "deny" ? "deny" : "allow",
                dataset: { decision },
                onclick: async () => {
                  const answer = await send({ type: "approval/answer", id: request.id, decision });
                  if (answer?.error) $("status").textContent = answer.error.message;
                },
              },
              label,
            ),
          ),
        ),
      ),
    ),
    ...withdrawn.map((request) =>
      el(
        "li",
        { class: "approval-withdrawn", dataset: { approval: String(request.id), withdrawn: "true" } },
        el("strong", { class: "approval-client" }, ...agentWho(request.executable, request.agent)),
        el("span", { class: "muted" }, ` — request withdrawn (${request.withdrawn}); nothing will run`),
        el("div", { class: "approval-summary" }, String(request.summary)),
      ),
    ),
  ]);
  // Opened from a notification (`popup.html?approval=<id>`): that request is the one in view.
  const wanted = new URLSearchParams(location.search).get("approval");
  const item = wanted ? [...list.querySelectorAll("li.approval")].find((li) => li.dataset.approval === wanted) : null;
  item?.scrollIntoView({ block: "nearest" });
}

export async function mountGateway() {
  $("gateway-agents").addEventListener("change", async (event) => {
    const config = await send({ type: "config/set", patch: { gateway: event.target.checked } });
    if (!config.error) renderGatewaySwitch(config);
  });
  const [config, approvals] = await Promise.all([send({ type: "config/get" }), send({ type: "approvals" })]);
  if (!config.error) renderGatewaySwitch(config);
  if (approvals.pending) renderApprovals(approvals.pending, approvals.withdrawn ?? []);
}
