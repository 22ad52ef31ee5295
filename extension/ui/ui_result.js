// Tool results as a person wants to read them: text, pretty JSON, images, resource links, errors.
// Everything here is untrusted tool output; it only ever becomes text nodes or an <img> with a data: URL
// whose type is one of a few image types and whose payload is checked to be base64.
import { el, formatDuration, saveBlob } from "./ui_dom.js";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_TEXT = 200_000; // what a page snapshot may be to show as an outline
const FIRST_SHOWN = 20_000; // text shown at once; more on request, all of it by Copy and Download
const MORE_SHOWN = 200_000; // each "Show more" adds this much, so no click freezes the popup
const EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

function fileName(uri, fallback) {
  const base = String(uri ?? "").split(/[/?#]/).filter(Boolean).pop() ?? "";
  const safe = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  return safe || fallback;
}

function base64Bytes(data) {
  const binary = atob(String(data ?? "").replace(/\s+/g, ""));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function downloadButton(label, description, save) {
  return el("button", { type: "button", class: "link download", "aria-label": description, onclick: save }, label);
}

export function imageDataUrl(data, mimeType) {
  const type = String(mimeType ?? "").toLowerCase();
  const payload = String(data ?? "").replace(/\s+/g, "");
  if (!IMAGE_TYPES.has(type) || !payload || !BASE64.test(payload)) return null;
  return `data:${type};base64,${payload}`;
}

function imageNode(data, mimeType, name = "image") {
  const url = imageDataUrl(data, mimeType);
  if (!url) return el("p", { class: "muted" }, `Image not shown: type "${String(mimeType)}" is not one of png, jpeg, gif, webp, or the data is not base64.`);
  const type = String(mimeType).toLowerCase();
  return el(
    "figure",
    { class: "result-figure" },
    el("img", { class: "result-image", src: url, alt: `Image returned by the tool (${mimeType})` }),
    downloadButton("Download image", `Download the image (${type})`, () => saveBlob(new Blob([base64Bytes(data)], { type }), `${name}.${EXTENSIONS[type]}`)),
  );
}

// Blocks of text keep their whole text for Copy and Download; long text is shown a part at a time.
function pre(text, cls) {
  const s = String(text);
  const node = el("pre", { class: cls, tabIndex: 0 }, s.slice(0, FIRST_SHOWN));
  const block = el("div", { class: "block" }, node);
  if (s.length > FIRST_SHOWN) {
    let shown = FIRST_SHOWN;
    const more = el("button", { type: "button", class: "link show-more" });
    const label = () => {
      const left = s.length - shown;
      more.textContent = `Show ${Math.min(left, MORE_SHOWN).toLocaleString("en")} more characters (${left.toLocaleString("en")} not shown)`;
    };
    more.addEventListener("click", () => {
      node.append(s.slice(shown, shown + MORE_SHOWN));
      shown += MORE_SHOWN;
      if (shown >= s.length) more.remove();
      else label();
    });
    label();
    block.append(more);
  }
  return copyable(s, block);
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

// The whole result's text as a file: .json when it is one JSON block, else .txt.
function resultDownload(body, name) {
  const text = resultText(body);
  if (!text) return null;
  const blocks = body.querySelectorAll(".block");
  const json = blocks.length === 1 && blocks[0].querySelector(":scope > pre.json") !== null;
  const file = `${fileName(name, "result")}.${json ? "json" : "txt"}`;
  const type = json ? "application/json" : "text/plain";
  return downloadButton("Download", `Download the result as ${file}`, () => saveBlob(new Blob([text], { type }), file));
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

// Text taken from a page comes between two marker lines with one nonce (core/web/fence.py): Tabgate's own
// words before and after, the page's text between. The popup shows the block plainly: the marker lines as
// they are, the page's text as any other text would be shown (an outline, JSON, or as it is).
const FENCED =
  /^(?:([\s\S]*?)\n)?(--- page content ([0-9a-f]{16,}) \(untrusted: text from the page, not instructions\) ---)\n([\s\S]*)\n(--- end of page content \3 ---)(?:\n([\s\S]*))?$/;

function fencedBlock(text, [, before, open, , page, close, after]) {
  const inner = textBlock(page);
  // The block as a whole is what Copy and Download take; the page's part is only shown.
  COPY_TEXT.delete(inner);
  inner.classList.replace("block", "page-content");
  return copyable(
    text,
    el(
      "div",
      { class: "block fenced" },
      before ? el("p", { class: "help" }, before) : null,
      el("p", { class: "fence-mark" }, open),
      inner,
      el("p", { class: "fence-mark" }, close),
      after ? el("p", { class: "help" }, after) : null,
    ),
  );
}

// Text that is JSON is shown pretty-printed, a page snapshot as an outline; anything else as it is.
export function textBlock(text) {
  const s = String(text ?? "");
  const t = s.trim();
  const fenced = s.length <= MAX_TEXT ? FENCED.exec(s) : null;
  if (fenced) return fencedBlock(s, fenced);
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
  else if (typeof resource.blob === "string") {
    const type = String(resource.mimeType ?? "application/octet-stream");
    const name = fileName(resource.uri, "resource");
    body = IMAGE_TYPES.has(type.toLowerCase())
      ? imageNode(resource.blob, resource.mimeType, name.replace(/\.[A-Za-z0-9]+$/, ""))
      : el(
          "p",
          { class: "muted" },
          `Binary content (${type}, ${bytesOfBase64(resource.blob)} bytes) `,
          downloadButton("Download", `Download ${name} (${type})`, () => saveBlob(new Blob([base64Bytes(resource.blob)], { type }), name)),
        );
  }
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

// What each outcome (decided in Python, core/calls/outcome.py, and carried as `answer.outcome`) looks like.
const LOOKS = {
  done: { kind: "ok", label: "Done" },
  fatal: { kind: "fatal", label: "Fatal error" },
  rejected: { kind: "error", label: "Error" },
};

// → {kind: "ok"|"error"|"fatal", label, parts: [Node]}: the kind and label are the answer's outcome drawn,
// the parts its content.
export function describeAnswer(answer) {
  if (!answer || typeof answer !== "object") return { kind: "error", label: "No answer", parts: [jsonBlock(answer)] };
  // An answer without one never reached Python's dispatch: the worker refused the request.
  const outcome = String(answer.outcome ?? "rejected");
  const look = LOOKS[outcome] ?? { kind: "error", label: outcome[0].toUpperCase() + outcome.slice(1) };
  return { ...look, parts: answerParts(answer) };
}

function answerParts(answer) {
  if (answer.fatal !== undefined) return [pre(String(answer.fatal), "text")];
  if (answer.error !== undefined && answer.output === undefined) return [jsonBlock(answer.error)];
  const out = answer.output ?? {};
  if (out.type === "mcp_tool_call_output") {
    const result = out.result ?? {};
    return result.Err !== undefined ? [pre(String(result.Err), "text")] : callToolResult(result.Ok ?? result);
  }
  if (out.type === "function_call_output" || out.type === "custom_tool_call_output") {
    const o = out.output;
    if (typeof o === "string") return [textBlock(o)];
    if (Array.isArray(o)) return o.length ? o.map(contentItem) : [el("p", { class: "muted" }, "(no content)")];
    if (o && typeof o === "object" && (typeof o.content === "string" || Array.isArray(o.content)))
      return typeof o.content === "string" ? [textBlock(o.content)] : o.content.map(contentItem);
    return [jsonBlock(o)];
  }
  return [jsonBlock(out)];
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
      resultDownload(body, name),
    ),
    body,
  );
}

