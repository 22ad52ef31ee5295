// How a tool is shown: Python decides its title (`label`), its marks and whether it needs a yes (core/tools/tool_facts.py);
// this draws them. MCP tools' titles come from their server: untrusted text, only ever set as textContent.
import { el } from "./ui_dom.js";

export function toolTitle(tool) {
  return String(tool.label ?? tool.name);
}

// Text marks (not colour alone) for tools a person should think twice about.
export function toolMarks(tool) {
  return (tool.marks ?? []).map((mark) => el("span", { class: `mark mark-${mark}` }, mark));
}
