// Servers' questions to the person (MCP elicitation), shown above everything else in the popup: a form built
// from the server's schema, or a page to open (URL mode), answered with Accept, Decline or Cancel. The service
// worker keeps the questions; Python checks an answer before it goes back; this page only shows and sends.
import { $, el, send } from "./ui_dom.js";
import { Field } from "./ui_form_field.js";
import { MessageType, EventType } from "../message_types.js";

const cards = new Map(); // question id → {node, fields, error}
let serial = 0;
// Opened by the service worker only to ask: it closes itself once nothing is left to answer.
const questionWindow = new URLSearchParams(location.search).has("questions");

function webUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

function formFields(schema, n) {
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(schema?.properties ?? {}).map(
    ([name, sub], i) => new Field(name, sub, required.has(name), `elicit-${n}-${i}`, { label: sub?.title ?? name }),
  );
}

function urlPart(request) {
  const url = webUrl(request.url);
  if (!url) return [el("p", { class: "field-error" }, "The server sent an address Tabgate will not open: "), el("code", {}, String(request.url))];
  return [
    el("p", { class: "elicit-origin" }, "Opens ", el("strong", {}, url.origin)),
    el("p", { class: "elicit-url mono" }, url.href),
    el("button", { type: "button", onclick: () => chrome.tabs.create({ url: url.href }) }, "Open page"),
  ];
}

async function answer(id, action) {
  const card = cards.get(id);
  if (!card) return;
  let content;
  if (action === "accept" && card.fields) {
    content = {};
    let bad = null;
    for (const f of card.fields) {
      const r = f.read();
      f.setError(r.error ?? "");
      if (r.error) bad ??= f;
      else if ("value" in r) content[f.name] = r.value;
    }
    if (bad) return bad.control.focus();
  }
  card.node.querySelectorAll("button").forEach((b) => (b.disabled = true));
  const reply = await send({ type: MessageType.ELICITATION_ANSWER, id, action, content }).catch((e) => ({ error: { message: String(e.message) } }));
  card.node.querySelectorAll("button").forEach((b) => (b.disabled = false));
  if (!reply?.error) return remove(id);
  const byField = reply.error.data?.fields ?? {};
  for (const f of card.fields ?? []) f.setError(byField[f.name] ? `${byField[f.name][0].toUpperCase()}${byField[f.name].slice(1)}` : "");
  card.error.textContent = Object.keys(byField).length ? "Check the fields marked above." : reply.error.message;
  card.error.hidden = false;
}

function show({ id, request }) {
  if (cards.has(id)) return;
  const n = ++serial;
  const url = request.mode === "url";
  const fields = url ? null : formFields(request.requestedSchema, n);
  const error = el("p", { class: "field-error", role: "alert", hidden: true });
  const node = el(
    "form",
    { class: "elicit", "aria-labelledby": `elicit-${n}-title`, noValidate: true, onsubmit: (e) => (e.preventDefault(), answer(id, "accept")) },
    el("h2", { id: `elicit-${n}-title` }, `${request.server ?? "A server"} asks`),
    el("p", { class: "elicit-message" }, String(request.message ?? "")),
    url ? urlPart(request) : el("div", { class: "fields" }, fields.map((f) => f.node)),
    error,
    el(
      "div",
      { class: "form-actions" },
      el("button", { type: "button", onclick: () => answer(id, "cancel") }, "Cancel"),
      el("button", { type: "button", onclick: () => answer(id, "decline") }, "Decline"),
      el("button", { type: "submit", class: "primary" }, url ? "Done" : "Accept"),
    ),
  );
  cards.set(id, { node, fields, error });
  $("elicitations").append(node);
  $("elicitations").hidden = false;
  (fields?.[0]?.control ?? node.querySelector("button.primary")).focus();
}

function remove(id) {
  cards.get(id)?.node.remove();
  cards.delete(id);
  $("elicitations").hidden = cards.size === 0;
  if (questionWindow && cards.size === 0) window.close();
}

// What the service worker holds now: questions it no longer holds (a restarted worker) are dropped.
export async function mountElicitations() {
  const { pending = [] } = (await send({ type: MessageType.ELICITATIONS }).catch(() => null)) ?? {};
  const held = new Set(pending.map((q) => q.id));
  for (const id of [...cards.keys()]) if (!held.has(id)) remove(id);
  pending.forEach(show);
  if (questionWindow && cards.size === 0) window.close();
}

// Events from the service worker: a new question, or one answered elsewhere or timed out.
export function onElicitationEvent(e) {
  if (e.type === EventType.ELICITATION) show(e);
  else if (e.type === EventType.ELICITATION_DONE) remove(e.id);
  else if (e.type === EventType.RECONNECTED) mountElicitations();
}
