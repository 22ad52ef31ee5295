"""What a person reads about an offered tool and how they find it: its title, its marks, whether running it
needs a yes, and its rank for a filter. The popup and the options page ask this module (through `tools` and
`tools/filter`); the agents' consent (core/agents/call_checks.py) asks `only_reads` here too.

MCP tools carry `title` and `annotations` from their server: untrusted text, only ever compared here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

type Tool = dict[str, Any]
type Mark = Literal["deprecated", "destructive"]
type Caller = Literal["person", "agent"]

# MCP-derived tools offered as built-ins: agents get them only with `gatewayMcp` (contract §8.1).
RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
# Built-ins that change nothing in the browser or elsewhere.
READING_BUILTINS = frozenset({"update_plan"}) | RESOURCE_TOOLS

_DEPRECATED = re.compile(r"\bdeprecated\b", re.IGNORECASE)
_WORD_SPLIT = re.compile(r"[^\w]+|_")


def _annotations(tool: Tool) -> dict[str, Any]:
    annotations = tool.get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def title_of(tool: Tool) -> str:
    """The title a person reads: the server's title for MCP tools, else the tool's own name."""
    for title in (tool.get("title"), _annotations(tool).get("title")):
        if isinstance(title, str) and title.strip():
            return title.strip()
    return str(tool.get("name", ""))


def only_reads(tool: Tool) -> bool:
    """An MCP tool its server declares read-only, or a built-in that changes nothing. Browser tools are
    decided per action (core/browser/actions.py), not here."""
    if tool.get("source") == "mcp":
        return _annotations(tool).get("readOnlyHint") is True
    return tool.get("name") in READING_BUILTINS


def is_destructive(tool: Tool) -> bool:
    """Only a server's explicit hint counts: MCP's default (destructive unless read-only) would mark all."""
    annotations = _annotations(tool)
    return annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True


def is_deprecated(tool: Tool) -> bool:
    texts = (tool.get("title"), _annotations(tool).get("title"), tool.get("description"))
    return any(isinstance(text, str) and _DEPRECATED.search(text) for text in texts)


def marks(tool: Tool) -> list[Mark]:
    """Text marks for tools a person should think twice about."""
    found: list[Mark] = []
    if is_deprecated(tool):
        found.append("deprecated")
    if is_destructive(tool):
        found.append("destructive")
    return found


def needs_yes(tool: Tool, caller: Caller) -> bool:
    """Whether a call of this (non-browser) tool waits for the person's yes. The one rule: a call that may
    change things is asked about unless the person made it knowingly. An agent's call changes things unless
    the tool only reads; the person's own click already chose the tool, so only a tool its server calls
    destructive asks again."""
    if caller == "agent":
        return not only_reads(tool)
    return is_destructive(tool)


def shown(tool: Tool) -> Tool:
    """A `tools` entry as pages get it: what Python decided about it added."""
    return tool | {"label": title_of(tool), "marks": marks(tool), "needsYes": needs_yes(tool, "person")}


# --- the filter ---------------------------------------------------------------------------------------------


def filter_words(text: str) -> list[str]:
    return text.lower().split()


def _words_of(text: str) -> list[str]:
    return [word for word in _WORD_SPLIT.split(text.lower()) if word]


def rank(tool: Tool, words: Iterable[str]) -> int | None:
    """The tool's rank for the filter's words (lower is better), or None when some word does not match.
    Each word ranks: 0 the whole name or title, 1 the start of one of their words, 2 anywhere in them,
    3 the start of a description word; the tool ranks as its worst word."""
    name = str(tool.get("name", "")).lower()
    title = title_of(tool).lower()
    name_words, title_words = _words_of(name), _words_of(title)
    description_words = _words_of(str(tool.get("description") or ""))
    worst = 0
    for word in words:
        if word in (name, title):
            word_rank = 0
        elif any(w.startswith(word) for w in name_words + title_words):
            word_rank = 1
        elif word in name or word in title:
            word_rank = 2
        elif any(w.startswith(word) for w in description_words):
            word_rank = 3
        else:
            return None
        worst = max(worst, word_rank)
    return worst


def ranked(tools: Iterable[Tool], text: str) -> list[dict[str, Any]]:
    """`tools/filter`: the names of the tools matching every word of `text`, best first (ties keep the
    offered order), each with its rank."""
    words = filter_words(text)
    matches = [
        (r, i, str(t.get("name", ""))) for i, t in enumerate(tools) if (r := rank(t, words)) is not None
    ]
    return [{"name": name, "rank": r} for r, _, name in sorted(matches)]
