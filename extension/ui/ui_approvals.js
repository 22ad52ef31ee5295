// The popup's agent gateway row: the switch "Let agents on this computer use Tabgate", the requests agents
// are waiting on (Allow once / Allow for this session / Deny), grouped by agent as Python groups them (a row
// per agent with its count, folded when many wait), each naming the agent by its program and then, apart, the
// name it gave itself (`agentWho`), and, in Python's plain words, the action with its arguments, the tab and the
// site; while agents are paused, what an answer does then; and requests withdrawn because their agent went
// away. Text from agents goes in with
// textContent only.
import { $, el, clear, send, formatTime } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

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

let shown = ""; // what is on screen: an unchanged list is not rebuilt under the person's pointer
const unfolded = new Map(); // agent id → the person opened (true) or closed (false) its group

function decisionButtons(request, decisions) {
  return el(
    "div",
    { class: "approval-actions" },
    decisions.map(([decision, label]) =>
      el(
        "button",
        {
          type: "button",
          class: decision === "deny" ? "deny" : "allow",
          dataset: { decision },
          onclick: async () => {
            const answer = await send({ type: MessageType.APPROVAL_ANSWER, id: request.id, decision });
            if (answer?.error) $("status").textContent = answer.error.message;
          },
        },
        label,
      ),
    ),
  );
}

// One question. While agents are paused Python marks it `paused`: an answer is kept and nothing runs until the
// person resumes agents; one allowed meanwhile (`answered`) waits for that and can still be denied.
function questionRow(request) {
  const held = request.answered !== undefined;
  // Python says when a question cannot be allowed for the session (its destination is unknown).
  const decisions = held
    ? [["deny", "Deny after all"]]
    : DECISIONS.filter(([decision]) => decision !== "session" || request.sessionAllowed !== false);
  return el(
    "li",
    { class: "approval", dataset: { approval: String(request.id), paused: String(request.paused === true), held: String(held) } },
    el(
      "div",
      { class: "approval-head" },
      el("strong", { class: "approval-client" }, ...agentWho(request.executable, request.agent)),
      el("span", { class: "muted" }, ` · ${formatTime(request.requestedAt)}`),
    ),
    el("div", { class: "approval-summary" }, String(request.summary)),
    held
      ? el("div", { class: "approval-paused" }, `You allowed this (${request.answered === "session" ? "for this session" : "once"}); it runs when you resume agents.`)
      : request.paused
        ? el("div", { class: "approval-paused" }, "Agents are paused: your answer is kept, and nothing runs until you resume agents.")
        : null,
    decisionButtons(request, decisions),
  );
}

// One agent's questions, as Python groups them: a folded row with the count, opened to answer each.
function groupRow(group, byId, wanted) {
  const questions = group.approvals.map((id) => byId.get(id)).filter(Boolean);
  const open = unfolded.get(group.agentId) ?? (group.expanded || group.approvals.includes(wanted));
  const waiting = `${group.count} question${group.count === 1 ? "" : "s"} waiting`;
  return el(
    "li",
    { class: "approval-group", dataset: { agent: String(group.agentId), count: String(group.count) } },
    el(
      "details",
      { open },
      el(
        "summary",
        // The person's own opening or closing is kept across redraws (a click, or Enter/Space on the summary).
        { class: "approval-group-head", onclick: (event) => unfolded.set(group.agentId, !event.currentTarget.parentElement.open) },
        el("strong", {}, ...agentWho(group.executable, group.agent)),
        el("span", { class: "muted" }, ` · ${waiting}`),
      ),
      el("ol", { class: "approvals", "aria-label": `Requests from ${group.agent}` }, questions.map(questionRow)),
    ),
  );
}

export function renderApprovals({ pending = [], held = [], withdrawn = [], groups = [] }) {
  const key = JSON.stringify([groups, pending.map((r) => [r.id, r.paused]), held.map((r) => r.id), withdrawn.map((r) => r.id)]);
  if (key === shown) return;
  shown = key;
  const list = $("approvals");
  list.hidden = !groups.length && !withdrawn.length;
  // Opened from a notification (`popup.html?approval=<id>`): that request is the one in view.
  const wanted = new URLSearchParams(location.search).get("approval");
  const byId = new Map([...pending, ...held].map((request) => [request.id, request]));
  clear(list, [
    ...groups.map((group) => groupRow(group, byId, wanted)),
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
  const item = wanted ? [...list.querySelectorAll("li.approval")].find((li) => li.dataset.approval === wanted) : null;
  item?.scrollIntoView({ block: "nearest" });
}

export async function mountGateway() {
  $("gateway-agents").addEventListener("change", async (event) => {
    const config = await send({ type: MessageType.CONFIG_SET, patch: { gateway: event.target.checked } });
    if (!config.error) renderGatewaySwitch(config);
  });
  const [config, approvals] = await Promise.all([send({ type: MessageType.CONFIG_GET }), send({ type: MessageType.APPROVALS })]);
  if (!config.error) renderGatewaySwitch(config);
  if (approvals.pending) renderApprovals(approvals);
}
