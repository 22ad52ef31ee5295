// Tool results as a person wants to read them: text, pretty JSON, images, resource links, errors.
// Everything here is untrusted tool output; it only ever becomes text nodes or an <img> with a data: URL
// whose type is one of a few image types and whose payload is checked to be base64.
import { el, formatDuration } from "./ui_dom.js";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT = 200_000;

export function imageDataUrl(data, mimeType) {
  const type = String(mimeType ?? "").toLowerCase();
  const payload = String(data ?? "").replace(/\s+/g, "");
  if (!IMAGE_TYPES.has(type) || !payload || !BASE64.test(payload)) return null;
  return `data:${type};base64,${payload}`;
}

function imageNode(data, mimeType) {
  const url = imageDataUrl(data, mimeType);
  if (!url) return el("p", { class: "muted" }, `Image not shown: type "${String(mimeType)}" is not one of png, jpeg, gif, webp, or the data is not base64.`);
  return el("img", { class: "result-image", src: url, alt: `Image returned by the tool (${mimeType})` });
}

// Blocks of text keep their whole text (even what is cut for showing) for the Copy button.
function pre(text, cls) {
  const s = String(text);
  const shown = s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s;
  return copyable(s, el(
    "div",
    { class: "block" },
    el("pre", { class: cls, tabIndex: 0 }, shown),
    s.length > MAX_TEXT ? el("p", { class: "muted" }, `… ${s.length - MAX_TEXT} more characters not shown (Copy copies them all)`) : null,
  ));
}

const COPY_TEXT = new WeakMap(); // block → its whole text

function copyable(text, node) {
  COPY_TEXT.set(node, text);
  return node;
}

// The text of a result's blocks, as a person would paste it.
function resultText(body) {
  return [...body.querySelectorAll(".block")].filter((b) => COPY_TEXT.has(b)).map((b) => COPY_TEXT.get(b)).join("\n\n");
}

function copyButton(body) {
  const text = resultText(body);
  if (!text) return null;
  const button = el("button", { type: "button", class: "copy link", "aria-label": "Copy the result's text" }, "Copy");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch (e) {
      button.textContent = `Could not copy: ${e.message}`;
    }
  });
  return button;
}

// A browser_page snapshot ("Page: …", then one node a line, two spaces a level) as nested lists.
function outlineBlock(text) {
  const [head, ...lines] = text.split("\n");
  const root = el("ul", { class: "outline" });
  const lists = [root]; // lists[d]: where the nodes of depth d go
  let last = null;
  for (const line of lines) {
    const depth = Math.floor((line.length - line.trimStart().length) / 2);
    if (depth >= lists.length && last) {
      const sub = el("ul");
      last.append(sub);
      lists.push(sub);
    }
    lists.length = Math.min(lists.length, depth + 1);
    last = el("li", {}, line.trim());
    lists[lists.length - 1].append(last);
  }
  return copyable(text, el("div", { class: "block" }, el("p", { class: "help" }, head), root));
}

// Text that is JSON is shown pretty-printed, a page snapshot as an outline; anything else as it is.
export function textBlock(text) {
  const s = String(text ?? "");
  const t = s.trim();
  if (/^Page: .*\n/.test(s) && /\[ref=e\d+\]/.test(s) && s.length <= MAX_TEXT) return outlineBlock(s);
  if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
    try {
      return pre(JSON.stringify(JSON.parse(t), null, 2), "json");
    } catch {
      // not JSON after all
    }
  }
  return pre(s, "text");
}

function jsonBlock(value) {
  return pre(JSON.stringify(value, null, 2), "json");
}

function bytesOfBase64(data) {
  const s = String(data ?? "").replace(/\s+/g, "");
  return Math.floor((s.length * 3) / 4) - (s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0);
}

function resourceLink(item) {
  return el(
    "div",
    { class: "resource" },
    el("div", { class: "resource-name" }, "Resource link: ", el("strong", {}, String(item.title ?? item.name ?? item.uri ?? ""))),
    el("code", { class: "uri" }, String(item.uri ?? "")),
    item.description ? el("p", { class: "help" }, String(item.description)) : null,
    item.mimeType ? el("p", { class: "help" }, String(item.mimeType)) : null,
  );
}

function embeddedResource(resource = {}) {
  let body;
  if (typeof resource.text === "string") body = textBlock(resource.text);
  else if (typeof resource.blob === "string")
    body = IMAGE_TYPES.has(String(resource.mimeType).toLowerCase())
      ? imageNode(resource.blob, resource.mimeType)
      : el("p", { class: "muted" }, `Binary content (${resource.mimeType ?? "unknown type"}, ${bytesOfBase64(resource.blob)} bytes)`);
  return el(
    "div",
    { class: "resource" },
    el("div", { class: "resource-name" }, "Resource: ", el("code", { class: "uri" }, String(resource.uri ?? ""))),
    body,
  );
}

// One MCP content item (CallToolResult.content), or one function-output content item.
function contentItem(item) {
  if (!item || typeof item !== "object") return jsonBlock(item);
  switch (item.type) {
    case "text":
    case "input_text":
    case "output_text":
      return textBlock(item.text);
    case "image":
      return imageNode(item.data, item.mimeType);
    case "input_image": {
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(String(item.image_url ?? ""));
      if (m) return imageNode(m[2], m[1]);
      return el("p", { class: "muted" }, "Image at an address (not loaded): ", el("code", { class: "uri" }, String(item.image_url ?? "")));
    }
    case "audio":
      return el("p", { class: "muted" }, `Audio (${item.mimeType ?? "unknown type"}, ${bytesOfBase64(item.data)} bytes), not played here`);
    case "resource_link":
      return resourceLink(item);
    case "resource":
      return embeddedResource(item.resource);
    default:
      return jsonBlock(item);
  }
}

function callToolResult(r) {
  const parts = [];
  const content = Array.isArray(r?.content) ? r.content : [];
  for (const item of content) parts.push(contentItem(item));
  if (r?.structuredContent !== undefined && r?.structuredContent !== null) {
    const details = el("details", { class: "structured", open: !content.length }, el("summary", {}, "Structured content"), jsonBlock(r.structuredContent));
    parts.push(details);
  }
  if (!parts.length) parts.push(el("p", { class: "muted" }, "(no content)"));
  return parts;
}

// → {kind: "ok"|"error"|"fatal", label, parts: [Node]}
export function describeAnswer(answer) {
  if (!answer || typeof answer !== "object") return { kind: "error", label: "No answer", parts: [jsonBlock(answer)] };
  if (answer.fatal !== undefined) return { kind: "fatal", label: "Fatal error", parts: [pre(String(answer.fatal), "text")] };
  if (answer.error !== undefined && answer.output === undefined)
    return { kind: "error", label: "Error", parts: [typeof answer.error === "string" ? pre(answer.error, "text") : jsonBlock(answer.error)] };
  const out = answer.output ?? {};
  let failed = answer.success === false;
  let parts;
  if (out.type === "mcp_tool_call_output") {
    const result = out.result ?? {};
    if (result.Err !== undefined) {
      failed = true;
      parts = [pre(String(result.Err), "text")];
    } else {
      const ok = result.Ok ?? result;
      if (ok?.isError) failed = true;
      parts = callToolResult(ok);
    }
  } else if (out.type === "function_call_output" || out.type === "custom_tool_call_output") {
    const o = out.output;
    if (typeof o === "string") parts = [textBlock(o)];
    else if (Array.isArray(o)) parts = o.length ? o.map(contentItem) : [el("p", { class: "muted" }, "(no content)")];
    else if (o && typeof o === "object" && (typeof o.content === "string" || Array.isArray(o.content))) {
      if (o.success === false) failed = true;
      parts = typeof o.content === "string" ? [textBlock(o.content)] : o.content.map(contentItem);
    } else parts = [jsonBlock(o)];
  } else parts = [jsonBlock(out)];
  return { kind: failed ? "error" : "ok", label: failed ? "Failed" : "Done", parts };
}

// The result panel's content for an answer (or a history entry that may still be running). `cancelled`: the
// person cancelled this call, so its error answer is the cancellation, not a failure.
export function renderResult({ name, answer, status, durationMs, cancelled = false }) {
  if (status === "running" || answer === undefined) {
    return el("div", { class: "result result-running" }, el("div", { class: "result-head" }, el("span", { class: "badge running" }, "Running"), el("span", { class: "result-name" }, String(name ?? ""))));
  }
  const d = describeAnswer(answer);
  if (cancelled && d.kind === "error") Object.assign(d, { kind: "cancelled", label: "Cancelled" });
  const body = el("div", { class: "result-body" }, d.parts);
  return el(
    "div",
    { class: `result result-${d.kind}`, dataset: { kind: d.kind } },
    el(
      "div",
      { class: "result-head" },
      el("span", { class: `badge ${d.kind}` }, d.label),
      el("span", { class: "result-name" }, String(name ?? "")),
      typeof durationMs === "number" ? el("span", { class: "muted" }, formatDuration(durationMs)) : null,
      copyButton(body),
    ),
    body,
  );
}

