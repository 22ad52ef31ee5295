"""What a person reads about a tool and how they find it (core/tools/tool_facts.py): title, marks, the one
"needs a yes" rule for agents and the person, and the filter's ranking used by the popup and options."""

from __future__ import annotations

from typing import Any

import pytest
from core_fakes import FakeHost, FakeServer, FakeTool, connect

from core.runtime.facade import Service
from core.tools.tool_facts import marks, needs_yes, ranked, title_of

pytestmark = pytest.mark.unit


def mcp(name: str, description: str = "", **annotations: Any) -> dict[str, Any]:
    return {"name": name, "source": "mcp", "description": description, "annotations": annotations}


def test_the_title_is_the_servers_title_else_the_name() -> None:
    assert title_of({"name": "x", "title": "  Erase Everything "}) == "Erase Everything"
    assert title_of(mcp("x", title="From annotations")) == "From annotations"
    assert title_of({"name": "x", "title": "   "}) == "x"


def test_marks_name_deprecated_and_only_explicitly_destructive_tools() -> None:
    assert marks(mcp("old", "Deprecated: use new")) == ["deprecated"]
    assert marks(mcp("erase", destructiveHint=True)) == ["destructive"]
    assert marks(mcp("erase", destructiveHint=True, readOnlyHint=True)) == []
    assert marks(mcp("plain")) == []  # MCP's default (destructive unless read-only) marks nothing


@pytest.mark.parametrize(
    ("tool", "agent", "person"),
    [
        (mcp("search", readOnlyHint=True), False, False),
        (mcp("add"), True, False),
        (mcp("erase", destructiveHint=True), True, True),
        ({"name": "update_plan", "source": "builtin"}, False, False),
        ({"name": "read_mcp_resource", "source": "builtin"}, False, False),
    ],
)
def test_one_rule_says_which_calls_wait_for_a_yes(tool: dict[str, Any], agent: bool, person: bool) -> None:
    assert (needs_yes(tool, "agent"), needs_yes(tool, "person")) == (agent, person)


TOOLS = [
    {"name": "mcp__notes__search", "title": "Search Notes", "description": "Find notes by text"},
    {"name": "mcp__notes__add", "title": "Add Note", "description": "Add a note to search later"},
    {"name": "update_plan", "description": "Record the plan"},
]


def test_the_filter_ranks_whole_names_then_word_starts_then_anywhere_then_the_description() -> None:
    assert ranked(TOOLS, "search") == [
        {"name": "mcp__notes__search", "rank": 1},
        {"name": "mcp__notes__add", "rank": 3},
    ]
    assert ranked(TOOLS, "update_plan") == [{"name": "update_plan", "rank": 0}]
    assert ranked(TOOLS, "date") == [{"name": "update_plan", "rank": 2}]


def test_every_word_must_match_and_the_worst_word_ranks_the_tool() -> None:
    assert ranked(TOOLS, "ADD later") == [{"name": "mcp__notes__add", "rank": 3}]
    assert ranked(TOOLS, "add nothing") == []


def test_no_words_keep_every_tool_in_the_offered_order() -> None:
    assert [m["name"] for m in ranked(TOOLS, "  ")] == [t["name"] for t in TOOLS]


async def test_the_service_filters_offered_tools_and_disabled_ones_no_longer_offered() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host)
    await svc.handle({"type": "config/set", "patch": {"disabledTools": ["mcp__gone__plan_b"]}})
    answer = await svc.handle({"type": "tools/filter", "text": "plan"})
    assert answer == {
        "matches": [{"name": "update_plan", "rank": 1}, {"name": "mcp__gone__plan_b", "rank": 1}]
    }


async def test_a_filter_without_text_is_refused_naming_it() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle({"type": "tools/filter"}) == {
        "error": {"code": -32602, "message": "tools/filter: text: Field required"}
    }


async def test_pages_get_each_tools_label_marks_and_whether_it_needs_a_yes() -> None:
    svc = Service(emit=lambda event: None)
    plan = (await svc.handle({"type": "tools"}))["tools"][0]
    assert (plan["label"], plan["marks"], plan["needsYes"]) == ("update_plan", [], False)
