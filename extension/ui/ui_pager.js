// Paging for the resource listings: a dispatch answer that carries `pages` (Python sets it for a paged listing:
// `{next}`, the next page's cursor or null) gets a "Next page" button that runs the same call with that cursor, and a page after the
// first a "First page" button. The cursor is the server's opaque text, passed back as it came.
import { el } from "./ui_dom.js";

// The buttons for this result, or null; `go(args)` runs the tool again with other arguments.
export function pagerFor(args, answer, go) {
  if (!answer?.pages) return null;
  const next = answer.pages.next;
  const { cursor, ...rest } = args ?? {};
  if (!next && cursor === undefined) return null;
  return el(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    cursor !== undefined ? el("button", { type: "button", onclick: () => go(rest) }, "First page") : null,
    next ? el("button", { type: "button", class: "primary", onclick: () => go({ ...rest, cursor: next }) }, "Next page") : null,
  );
}
