// Paging for the resource listings (list_mcp_resources, list_mcp_resource_templates): a result that carries a
// `nextCursor` gets a "Next page" button that runs the same call with that cursor, and a page after the first
// a "First page" button. The cursor is the server's opaque text, passed back as it came.
import { el } from "./ui_dom.js";

const PAGED = new Set(["list_mcp_resources", "list_mcp_resource_templates"]);

function nextCursor(answer) {
  const text = answer?.output?.type === "function_call_output" ? answer.output.output : null;
  if (typeof text !== "string") return null;
  try {
    const cursor = JSON.parse(text)?.nextCursor;
    return typeof cursor === "string" && cursor ? cursor : null;
  } catch {
    return null;
  }
}

// The buttons for this result, or null; `go(args)` runs the tool again with other arguments.
export function pagerFor(toolName, args, answer, go) {
  if (!PAGED.has(toolName)) return null;
  const next = nextCursor(answer);
  const { cursor, ...rest } = args ?? {};
  if (!next && cursor === undefined) return null;
  return el(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    cursor !== undefined ? el("button", { type: "button", onclick: () => go(rest) }, "First page") : null,
    next ? el("button", { type: "button", class: "primary", onclick: () => go({ ...rest, cursor: next }) }, "Next page") : null,
  );
}
