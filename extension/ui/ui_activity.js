// The options page's activity log (contract §9 `agents/activity`): what agents did, newest first, as Python
// keeps it; filtered by agent; exported as JSON (the entries shown). Text goes in through textContent only.
import { $, el, clear, send, formatDuration, formatTime, saveBlob } from "./ui_dom.js";
import { MessageType } from "../message_types.js";

const SHOWN = 100;

function entryRow(entry) {
  const what = entry.action ? `${entry.tool} ${entry.action}` : entry.tool;
  const where = [entry.site, entry.tabId !== undefined ? `tab ${entry.tabId}` : null].filter(Boolean).join(", ");
  return el(
    "li",
    { class: "activity-entry", dataset: { outcome: entry.outcome, call: entry.id ?? "" } },
    el("span", { class: "muted" }, `${formatTime(entry.at)} `),
    el("strong", {}, entry.agent),
    ` ${what}${where ? ` (${where})` : ""} — `,
    el("span", { class: `outcome outcome-${entry.outcome}` }, entry.outcome),
    el("span", { class: "muted" }, ` · ${formatDuration(entry.ms)}`),
  );
}

function chosenAgent() {
  return $("activity-agent").value || undefined;
}

async function entries() {
  const answer = await send({ type: MessageType.AGENTS_ACTIVITY, id: chosenAgent() });
  return answer?.entries ?? [];
}

// The filter lists every agent seen since the browser started, and any the log still names.
function renderChoices(agents, logged) {
  const select = $("activity-agent");
  const chosen = select.value;
  const names = new Map(agents.map((a) => [a.id, `${a.name} — ${a.executable}`]));
  for (const e of logged) if (!names.has(e.agentId)) names.set(e.agentId, e.agent);
  clear(select, el("option", { value: "" }, "All agents"), [...names].map(([id, name]) => el("option", { value: id }, name)));
  select.value = names.has(chosen) ? chosen : "";
}

export async function renderActivity() {
  const [{ agents = [] }, all] = await Promise.all([send({ type: MessageType.AGENTS }), send({ type: MessageType.AGENTS_ACTIVITY })]);
  renderChoices(agents, all?.entries ?? []);
  const shown = chosenAgent() ? await entries() : (all?.entries ?? []);
  clear(
    $("activity"),
    shown.length ? shown.slice(0, SHOWN).map(entryRow) : el("li", { class: "muted" }, "No agent call yet."),
  );
}

async function exportJson() {
  const data = JSON.stringify({ exportedAt: new Date().toISOString(), entries: await entries() }, null, 2);
  saveBlob(new Blob([data], { type: "application/json" }), "tabgate-agent-activity.json");
}

export function mountActivity() {
  $("activity-agent").addEventListener("change", renderActivity);
  $("activity-export").addEventListener("click", exportJson);
  return renderActivity();
}
