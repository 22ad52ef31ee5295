"""Qualified MCP tool names and the MCP tool table (codex `qualify_tools`, contract §6)."""

from __future__ import annotations

import hashlib

import pytest

from core.calls.names import qualified_mcp_tool_name
from core.host_link.mcp_tools import build_mcp_tool_table

pytestmark = pytest.mark.unit

LONG = "extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits"
LONGER = "yet_another_extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits"


def host_tool(server: str, name: str, **extra: object) -> dict[str, object]:
    return {"server": server, "name": name, "inputSchema": {"type": "object"}, **extra}


def test_short_names_are_mcp_prefix_server_and_tool_joined_by_double_underscores() -> None:
    assert qualified_mcp_tool_name("notes", "add_note") == "mcp__notes__add_note"


def test_codex_vector_for_an_overlong_tool_name() -> None:
    name = qualified_mcp_tool_name("my_server", LONG)
    assert name == "mcp__my_server__extremel119a2b97664e41363932dc84de21e2ff1b93b3e9"
    assert len(name) == 64


def test_codex_vector_for_another_overlong_tool_name() -> None:
    name = qualified_mcp_tool_name("my_server", LONGER)
    assert name == "mcp__my_server__yet_anot419a82a89325c1b477274a41f8c65ea5f3a7f341"
    assert len(name) == 64


def test_a_name_of_exactly_64_characters_is_kept_whole() -> None:
    tool = "t" * (64 - len("mcp__s__"))
    assert qualified_mcp_tool_name("s", tool) == f"mcp__s__{tool}"


def test_a_name_of_65_characters_keeps_24_characters_and_the_sha1_of_the_full_name() -> None:
    tool = "t" * (65 - len("mcp__s__"))
    raw = f"mcp__s__{tool}"
    assert qualified_mcp_tool_name("s", tool) == raw[:24] + hashlib.sha1(raw.encode()).hexdigest()


def test_characters_outside_the_allowed_set_become_underscores() -> None:
    assert qualified_mcp_tool_name("my.server", "read file/é") == "mcp__my_server__read_file__"


def test_the_hash_of_an_overlong_name_is_taken_from_the_raw_unsanitised_name() -> None:
    tool = "a.b" + "x" * 70
    raw = f"mcp__s__{tool}"
    expected_hash = hashlib.sha1(raw.encode()).hexdigest()
    assert qualified_mcp_tool_name("s", tool).endswith(expected_hash)
    assert qualified_mcp_tool_name("s", tool) != qualified_mcp_tool_name("s", "a_b" + "x" * 70)


def test_the_table_uses_names_the_core_computes_not_the_hosts_qualified_name() -> None:
    table = build_mcp_tool_table({"tools": [host_tool("notes", "add", qualifiedName="something_else")]})
    assert list(table) == ["mcp__notes__add"]
    assert (table["mcp__notes__add"].server, table["mcp__notes__add"].tool) == ("notes", "add")


def test_of_two_tools_with_the_same_name_the_first_wins() -> None:
    table = build_mcp_tool_table(
        {
            "tools": [
                host_tool("s", "dup", description="first"),
                host_tool("s", "dup", description="second"),
            ]
        }
    )
    assert [tool.spec.description for tool in table.values()] == ["first"]


def test_of_two_tools_that_sanitise_to_the_same_name_the_first_wins() -> None:
    table = build_mcp_tool_table(
        {"tools": [host_tool("s", "foo.bar", description="dotted"), host_tool("s", "foo_bar")]}
    )
    assert list(table) == ["mcp__s__foo_bar"]
    assert table["mcp__s__foo_bar"].tool == "foo.bar"


def test_the_table_is_sorted_by_qualified_name_and_skips_invalid_entries() -> None:
    table = build_mcp_tool_table(
        {"tools": [host_tool("b", "x"), {"server": "a", "name": 5}, host_tool("a", "y")]}
    )
    assert list(table) == ["mcp__a__y", "mcp__b__x"]


def test_mcp_tools_never_support_parallel_calls_and_default_to_an_empty_description() -> None:
    table = build_mcp_tool_table({"tools": [host_tool("s", "t")]})
    spec = table["mcp__s__t"].spec
    assert spec.supports_parallel is False
    assert spec.description == ""
