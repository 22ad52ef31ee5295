// The popup's tool list: the tools the service worker offers, grouped by where they come from, with a filter
// that Python ranks (`tools/filter`) and whose best match Enter opens. All text goes in as textContent.
import { $, el, clear, send } from "./ui_dom.js";
import { toolTitle, toolMarks } from "./ui_tools.js";
import { MessageType } from "../message_types.js";

const GROUPS = { builtin: "Built-in", browser: "Browser" };

// `onOpen(tool)`: the person chose a tool; `listShown()`: the list is on screen (Enter may open a tool).
export class ToolList {
  constructor({ onOpen, listShown }) {
    this.tools = [];
    this.key = null; // what the list was loaded for; reloaded when python/host/servers/mcpTools change
    this.toolOf = new WeakMap(); // tool button → its tool
    this.best = null; // the tool button the filter ranks first: Enter opens it
    this.enterPending = false; // Enter was pressed before the tools were listed: open the best then
    Object.assign(this, { onOpen, listShown });
    const filter = $("tool-filter");
    filter.addEventListener("input", () => this.filter());
    this.filtering = null; // the filter text Python is ranking now: only the newest answer is drawn
    this.filtered = Promise.resolve(); // the newest filter drawn: Enter waits for it
    filter.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      if (!this.tools.length) this.enterPending = true;
      else this.filtered.then(() => this.openBest());
    });
  }

  find(name) {
    return this.tools.find((t) => t.name === name);
  }

  async load(key) {
    this.key = key;
    let answer;
    try {
      answer = await send({ type: MessageType.TOOLS });
    } catch (e) {
      answer = { error: { message: e.message } };
    }
    if (this.key !== key) return; // a newer load started
    if (!answer || answer.error || !Array.isArray(answer.tools)) {
      this.key = null;
      $("tools-note").textContent = `Could not list the tools: ${answer?.error?.message ?? "no answer"}`;
      return;
    }
    this.tools = answer.tools;
    this.render();
  }

  render() {
    const groups = new Map();
    for (const source of ["builtin", "browser"]) groups.set(source, { label: GROUPS[source], tools: [] });
    for (const tool of this.tools) {
      const g = groupOf(tool);
      if (!groups.has(g.key)) groups.set(g.key, { label: g.label, tools: [] });
      groups.get(g.key).tools.push(tool);
    }
    const sections = [];
    for (const [key, g] of groups) {
      if (!g.tools.length) continue;
      const headingId = `group-${sections.length}`;
      sections.push(
        el(
          "section",
          { class: "tool-group", dataset: { group: key }, "aria-labelledby": headingId },
          el("h2", { id: headingId }, g.label, el("span", { class: "count" }, ` (${g.tools.length})`)),
          el(
            "ul",
            { class: "tool-list" },
            g.tools.map((tool) => el("li", {}, this.button(tool))),
          ),
        ),
      );
    }
    const focused = document.activeElement?.classList?.contains("tool") ? document.activeElement.dataset.tool : undefined;
    clear($("tool-groups"), sections);
    this.filter().then(() => {
      if (this.enterPending && this.listShown()) this.openBest();
    });
    if (focused !== undefined)
      [...$("tool-groups").querySelectorAll("button.tool")].find((b) => b.dataset.tool === focused)?.focus();
  }

  button(tool) {
    const titled = toolTitle(tool) !== String(tool.name);
    const button = el(
      "button",
      { type: "button", class: "tool", dataset: { tool: String(tool.name) }, title: String(tool.description ?? ""), onclick: () => this.onOpen(tool) },
      el("span", { class: "tool-name" }, toolTitle(tool), toolMarks(tool)),
      tool.source === "mcp" ? el("span", { class: "tool-server muted" }, `${String(tool.server ?? "")}${titled ? ` · ${String(tool.name)}` : ""}`) : null,
      el("span", { class: "tool-summary" }, String(tool.description ?? "").split("\n")[0]),
    );
    this.toolOf.set(button, tool);
    return button;
  }

  filter() {
    this.filtered = this.#filter();
    return this.filtered;
  }

  // Shows the tools matching every word, each group's best first; the best of all gets Enter.
  async #filter() {
    const text = $("tool-filter").value;
    this.filtering = text;
    const answer = text.trim() ? await send({ type: MessageType.TOOLS_FILTER, text }).catch(() => null) : null;
    if (this.filtering !== text) return; // typed on meanwhile
    const ranks = answer?.matches ? new Map(answer.matches.map((m) => [m.name, m.rank])) : null;
    const words = text.trim() ? [text] : [];
    let shown = 0;
    let best = null;
    for (const group of $("tool-groups").querySelectorAll(".tool-group")) {
      const list = group.querySelector(".tool-list");
      const rows = [...list.children].map((li, i) => {
        const button = li.querySelector("button.tool");
        const order = Number(li.dataset.order ?? i);
        li.dataset.order = String(order);
        const name = this.toolOf.get(button).name;
        return { li, button, order, rank: ranks ? (ranks.get(name) ?? null) : 0 };
      });
      rows.sort((a, b) => (a.rank ?? 9) - (b.rank ?? 9) || a.order - b.order);
      if (rows.some((r, i) => list.children[i] !== r.li)) list.append(...rows.map((r) => r.li));
      let inGroup = 0;
      for (const r of rows) {
        r.li.hidden = r.rank === null;
        r.button.classList.remove("best");
        if (r.rank === null) continue;
        inGroup++;
        if (!best || r.rank < best.rank) best = r;
      }
      group.hidden = inGroup === 0;
      shown += inGroup;
    }
    this.best = words.length && best ? best.button : null;
    this.best?.classList.add("best");
    const total = this.tools.length;
    $("tools-note").textContent = !total
      ? "No tools are offered."
      : words.length
        ? shown
          ? `${shown} of ${total} tools match.`
          : "No tools match the filter."
        : `${total} tools.`;
  }

  // Enter in the filter: the best match, or the first tool shown when no word is typed.
  openBest() {
    this.enterPending = false;
    (this.best ?? $("tool-groups").querySelector("li:not([hidden]) button.tool"))?.click();
  }
}

function groupOf(tool) {
  if (tool.source === "mcp") return { key: `mcp:${tool.server ?? ""}`, label: tool.server ? `MCP · ${tool.server}` : "MCP" };
  return { key: String(tool.source), label: GROUPS[tool.source] ?? String(tool.source) };
}
