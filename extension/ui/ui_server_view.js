// One MCP server's prompts and log messages, opened from its row in the popup. Prompts are listed and fetched
// through the runtime API (`prompts`, `prompt/get`); logs come from `server/logs`, then live from the
// `serverLog` events the service worker relays. Server text is untrusted: textContent only.
import { $, el, clear, send, formatTime } from "./ui_dom.js";
import { Field } from "./ui_form_field.js";
import { MessageType, EventType } from "../message_types.js";

const LOGS_SHOWN = 200;
let current = null; // {name, logs: <ol>}
let serial = 0;

function errorText(answer) {
  return answer?.error ? String(answer.error.message) : null;
}

function logLine({ level, logger, data, at }) {
  return el(
    "li",
    { class: `log log-${String(level)}` },
    el("span", { class: "muted" }, at ? formatTime(at) : ""),
    el("span", { class: "log-level" }, String(level ?? "")),
    logger ? el("span", { class: "muted" }, `${String(logger)}:`) : null,
    el("span", { class: "log-data" }, typeof data === "string" ? data : JSON.stringify(data)),
  );
}

function addLog(entry) {
  const list = current.logs;
  list.append(logLine(entry));
  while (list.children.length > LOGS_SHOWN) list.firstElementChild.remove();
  current.logsEmpty.hidden = true;
}

function messagesText(result) {
  return (result.messages ?? [])
    .map((m) => `${m.role}: ${m.content?.type === "text" ? m.content.text : JSON.stringify(m.content)}`)
    .join("\n\n");
}

function promptForm(server, prompt, slot) {
  const n = ++serial;
  const fields = (prompt.arguments ?? []).map(
    (a, i) => new Field(a.name, { type: "string", description: a.description }, a.required === true, `prompt-${n}-${i}`),
  );
  const output = el("div", { class: "prompt-output", "aria-live": "polite" });
  const get = async (e) => {
    e.preventDefault();
    const args = {};
    for (const f of fields) {
      const r = f.read();
      const missing = f.required && !("value" in r);
      f.setError(missing ? "Required: enter a value" : "");
      if (missing) return f.control.focus();
      if ("value" in r) args[f.name] = r.value;
    }
    clear(output, el("p", { class: "muted" }, "Getting the prompt…"));
    const answer = await send({ type: MessageType.PROMPT_GET, server, name: prompt.name, arguments: args }).catch((x) => ({ error: { message: x.message } }));
    const problem = errorText(answer);
    if (problem) return clear(output, el("p", { class: "field-error" }, problem));
    const text = messagesText(answer);
    clear(
      output,
      answer.description ? el("p", { class: "help" }, String(answer.description)) : null,
      el("pre", { class: "prompt-messages mono" }, text),
      el("button", { type: "button", onclick: () => navigator.clipboard.writeText(text) }, "Copy"),
    );
  };
  clear(
    slot,
    el(
      "form",
      { class: "prompt-form", onsubmit: get, "aria-label": `Prompt ${prompt.name}` },
      el("h4", {}, String(prompt.title ?? prompt.name)),
      prompt.description ? el("p", { class: "help" }, String(prompt.description)) : null,
      fields.map((f) => f.node),
      el("div", { class: "form-actions" }, el("button", { type: "submit", class: "primary" }, "Get prompt")),
      output,
    ),
  );
  (fields[0]?.control ?? slot.querySelector("button")).focus();
}

async function loadPrompts(server, list, slot) {
  const answer = await send({ type: MessageType.PROMPTS, server }).catch((x) => ({ error: { message: x.message } }));
  const problem = errorText(answer);
  if (problem) return clear(list, el("li", { class: "field-error" }, problem));
  const prompts = answer.prompts ?? [];
  if (!prompts.length) return clear(list, el("li", { class: "muted" }, "This server offers no prompts."));
  clear(
    list,
    prompts.map((p) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: "tool", dataset: { prompt: String(p.name) }, onclick: () => promptForm(server, p, slot) },
          el("span", { class: "tool-name" }, String(p.title ?? p.name)),
          p.description ? el("span", { class: "tool-summary" }, String(p.description)) : null,
        ),
      ),
    ),
  );
}

async function loadLogs(server) {
  const answer = await send({ type: MessageType.SERVER_LOGS, server }).catch((x) => ({ error: { message: x.message } }));
  const problem = errorText(answer);
  if (problem) return clear(current.logs, el("li", { class: "field-error" }, problem));
  for (const entry of answer.logs ?? []) addLog(entry);
}

// Fills `slot` with the server's prompts and logs.
export function showServer(name, slot) {
  const prompts = el("ul", { class: "prompt-list", "aria-label": "Prompts" });
  const promptSlot = el("div", { class: "prompt-slot" });
  const logs = el("ol", { class: "logs", "aria-label": "Log messages" });
  const logsEmpty = el("p", { class: "muted" }, "No log messages yet.");
  current = { name, logs, logsEmpty, prompts, promptSlot };
  clear(slot, el("h3", {}, "Prompts"), prompts, promptSlot, el("h3", {}, "Logs"), logsEmpty, logs);
  loadPrompts(name, prompts, promptSlot);
  loadLogs(name);
}

export function closeServer() {
  current = null;
}

// A log message relayed live; prompts listed again when the server says they changed.
export function onServerEvent(e) {
  if (!current || e.server !== current.name) return;
  if (e.type === EventType.SERVER_LOG) addLog({ ...e, at: e.at ?? Date.now() });
  else if (e.type === EventType.LIST_CHANGED && e.kind === "prompts") loadPrompts(current.name, current.prompts, current.promptSlot);
}
