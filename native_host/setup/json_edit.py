"""Editing an agent's JSON config in place: one server entry set or taken out while every other key, its
order, layout and line endings stay as they were (the text is known to be valid JSON)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

_SPACE: Final = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True, slots=True)
class _Member:
    key: str
    key_start: int  # the key's opening quote
    value_start: int
    value_end: int  # one past the value


@dataclass(frozen=True, slots=True)
class _Object:
    start: int  # "{"
    end: int  # one past "}"
    members: list[_Member]

    def last(self, key: str) -> _Member | None:
        """The member a JSON reader uses: the last one with that key."""
        found = [member for member in self.members if member.key == key]
        return found[-1] if found else None


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _object_at(text: str, start: int) -> _Object:
    """The members of the object at `start`, with where each sits (the text is known to be valid JSON)."""
    decoder = json.JSONDecoder()
    members: list[_Member] = []
    index = _skip(text, start + 1)
    while text[index] != "}":
        key, after = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
        value_start = _skip(text, _skip(text, after) + 1)  # past the colon
        _value, value_end = decoder.raw_decode(text, value_start)
        members.append(_Member(key, index, value_start, value_end))
        index = _skip(text, value_end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return _Object(start, index + 1, members)


def _line_indent(text: str, position: int) -> str | None:
    """The whitespace before `position` on its line; None when something else comes first (inline layout)."""
    prefix = text[text.rfind("\n", 0, position) + 1 : position]
    return prefix if not prefix.strip() else None


def _render(value: object, indent: str | None, unit: str | None, newline: str) -> str:
    """`value` as JSON for a member whose key sits at `indent`: nested lines one `unit` deeper each."""
    if indent is None or unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + indent)


def with_entry(text: str, servers_key: str, name: str, entry: Mapping[str, object]) -> str:
    """`text` with `servers_key`.`name` set to `entry`, every other byte kept."""
    newline = "\r\n" if "\r\n" in text else "\n"
    top = _object_at(text, _skip(text, 0))
    if not top.members:
        body = json.dumps({servers_key: {name: entry}}, indent=2, ensure_ascii=False)
        return text[: top.start] + body.replace("\n", newline) + text[top.end :]
    unit = _line_indent(text, top.members[0].key_start)
    servers = top.last(servers_key)
    if servers is None:  # a new last member of the top object, laid out like the one before it
        last = top.members[-1]
        indent = _line_indent(text, last.key_start)
        value = _render({name: entry}, indent, unit, newline)
        gap = newline + indent if indent is not None else " "
        insert = f",{gap}{json.dumps(servers_key)}: {value}"
        return text[: last.value_end] + insert + text[last.value_end :]
    inner = _object_at(text, servers.value_start)
    current = inner.last(name)
    if current is not None:
        value = _render(entry, _line_indent(text, current.key_start), unit, newline)
        return text[: current.value_start] + value + text[current.value_end :]
    if not inner.members:
        value = _render({name: entry}, _line_indent(text, servers.key_start), unit, newline)
        return text[: inner.start] + value + text[inner.end :]
    last = inner.members[-1]
    indent = _line_indent(text, last.key_start)
    gap = newline + indent if indent is not None else " "
    insert = f",{gap}{json.dumps(name)}: {_render(entry, indent, unit, newline)}"
    return text[: last.value_end] + insert + text[last.value_end :]


def without_entry(text: str, servers_key: str, name: str) -> str:
    """Every `name` member taken out of the servers object, with the comma and layout around it."""
    while True:
        top = _object_at(text, _skip(text, 0))
        servers = top.last(servers_key)
        if servers is None:
            return text
        inner = _object_at(text, servers.value_start)
        where = next((i for i, member in enumerate(inner.members) if member.key == name), None)
        if where is None:
            return text
        member = inner.members[where]
        if len(inner.members) == 1:
            text = text[: inner.start] + "{}" + text[inner.end :]
        elif where > 0:
            text = text[: inner.members[where - 1].value_end] + text[member.value_end :]
        else:
            text = text[: member.key_start] + text[inner.members[1].key_start :]


_JSONC_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=[ \t\r\n]*[}\]])', re.DOTALL)


def without_comments(text: str) -> str:
    """JSONC (comments, trailing commas: what Gemini CLI and opencode also read) as plain JSON. Strings are
    kept whole, so a `//` inside a URL stays; an unclosed comment is left for the JSON reader to refuse."""
    for _ in range(2):  # the second pass: commas a removed comment left before a closing bracket
        text = _JSONC_TOKEN.sub(lambda match: match[0] if match[0].startswith('"') else "", text)
    return text
