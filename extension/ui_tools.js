// How a tool is shown and found: its title, its server, its marks (deprecated, destructive) and its rank for
// a filter. MCP tools carry `title` and `annotations` from their server; both are untrusted text.
import { el } from "./ui_dom.js";

// The title a person reads: the server's title for MCP tools, else the tool's own name.
export function toolTitle(tool) {
  const title = tool.title ?? tool.annotations?.title;
  return typeof title === "string" && title.trim() ? title.trim() : String(tool.name);
}

// Text marks (not colour alone) for tools a person should think twice about.
export function toolMarks(tool) {
  return [
    isDeprecated(tool) ? el("span", { class: "mark mark-deprecated" }, "deprecated") : null,
    isDestructive(tool) ? el("span", { class: "mark mark-destructive" }, "destructive") : null,
  ];
}

export function isDeprecated(tool) {
  return /\bdeprecated\b/i.test(`${tool.title ?? ""} ${tool.annotations?.title ?? ""} ${tool.description ?? ""}`);
}

// Only a server's explicit hint counts: the MCP default (destructive unless read-only) would mark every tool.
export function isDestructive(tool) {
  return tool.annotations?.destructiveHint === true && tool.annotations?.readOnlyHint !== true;
}

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;

function wordsOf(text) {
  return String(text ?? "").toLowerCase().split(WORD_SPLIT).filter(Boolean);
}

// Rank of one filter word for a tool (lower is better), or null when the word does not match it:
// the whole name or title, the start of one of their words, anywhere in them, the start of a description word.
function wordRank(word, t) {
  if (t.name === word || t.title === word) return 0;
  if (t.nameWords.some((w) => w.startsWith(word)) || t.titleWords.some((w) => w.startsWith(word))) return 1;
  if (t.name.includes(word) || t.title.includes(word)) return 2;
  if (t.descriptionWords.some((w) => w.startsWith(word))) return 3;
  return null;
}

// Rank of a tool for the filter's words: the worst of its words' ranks; null when some word does not match.
// Name and title matches come first, then matches of words of the description.
export function filterRank(tool, words) {
  const name = String(tool.name).toLowerCase();
  const title = toolTitle(tool).toLowerCase();
  const t = { name, title, nameWords: wordsOf(name), titleWords: wordsOf(title), descriptionWords: wordsOf(tool.description) };
  let rank = 0;
  for (const word of words) {
    const r = wordRank(word, t);
    if (r === null) return null;
    rank = Math.max(rank, r);
  }
  return rank;
}

export function filterWords(text) {
  return String(text).toLowerCase().split(/\s+/).filter(Boolean);
}
