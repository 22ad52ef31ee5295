"""Writing `[mcp_servers.<name>]` tables with tomlkit, adding them to the user's config, and switching one on
or off (`enabled`).

New servers are appended after the user's text, which is kept byte for byte (comments, spacing, order, line
endings); tomlkit renders the new tables, escaping what TOML cannot hold raw (control characters, DEL).
What TOML cannot hold at all (a lone surrogate, a value with no TOML form) is refused before anything is
written, naming the server and key; and the result is read back and compared before it replaces the file."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Array, InlineTable, Table

from .files import kept_or_tightened, write_atomically
from .loading import ConfigProblem, type_name

_SERVERS = "mcp_servers"


class ConfigWriteError(Exception):
    """The config was not changed: what was asked cannot be written, or the file cannot be read."""

    def __init__(self, message: str, problems: list[ConfigProblem] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


def _lone_surrogate(text: str) -> str | None:
    for char in text:
        if 0xD800 <= ord(char) <= 0xDFFF:
            return f"U+{ord(char):04X}"
    return None


def unrepresentable(path: Path, server: str, table: Mapping[str, object]) -> list[ConfigProblem]:
    """Every value of a server's table that TOML cannot hold, each with its key (e.g. `args.1`)."""
    problems: list[ConfigProblem] = []

    def visit(value: object, key: str) -> None:
        if isinstance(value, str):
            surrogate = _lone_surrogate(value)
            if surrogate is not None:
                problems.append(
                    ConfigProblem(
                        path,
                        server,
                        key,
                        f"contains {surrogate}, a lone surrogate: not a character, so neither TOML nor "
                        "UTF-8 can hold it (fix the file it came from)",
                    )
                )
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                visit(item, f"{key}.{index}")
        elif isinstance(value, Mapping):
            for name, item in value.items():
                if not isinstance(name, str):
                    problems.append(ConfigProblem(path, server, key, f"has a key that is {type_name(name)}"))
                    continue
                visit(name, key)
                visit(item, f"{key}.{name}")
        elif not isinstance(value, bool | int | float):
            problems.append(
                ConfigProblem(path, server, key, f"is {type_name(value)}, which TOML cannot hold")
            )

    for key, value in table.items():
        visit(value, key)
    return problems


def _item(value: object) -> Any:
    """A tomlkit item: tables inside a server (env, headers) stay inline, as people write them."""
    if isinstance(value, Mapping):
        inline: InlineTable = tomlkit.inline_table()
        for key, item in value.items():
            inline[key] = _item(item)
        return inline
    if isinstance(value, list | tuple):
        array: Array = tomlkit.array()
        array.extend(_item(item) for item in value)
        return array
    return value


def render_servers(tables: Mapping[str, Mapping[str, object]]) -> str:
    """`[mcp_servers.<name>]` tables as TOML text (values checked with `unrepresentable` first)."""
    servers: Table = tomlkit.table(is_super_table=True)
    for name, table in tables.items():
        rendered: Table = tomlkit.table()
        for key, value in table.items():
            rendered[key] = _item(value)
        servers[name] = rendered
    document = tomlkit.document()
    document[_SERVERS] = servers
    return document.as_string()


def _separator(text: str, newline: str) -> str:
    if not text or text.endswith(newline * 2):
        return ""
    return newline if text.endswith(newline) else newline * 2


def with_servers_added(path: Path, text: str, tables: Mapping[str, Mapping[str, object]]) -> str:
    """The config text with `tables` appended: the user's text unchanged, the result checked by reading it."""
    problems = [problem for name, table in tables.items() for problem in unrepresentable(path, name, table)]
    if problems:
        raise ConfigWriteError("; ".join(str(problem) for problem in problems), problems)
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigWriteError(
            f"{path} is not valid TOML ({exc}); fix it first (`tabgate-host config check` shows where)"
        ) from exc
    newline = "\r\n" if "\r\n" in text else "\n"
    result = text + _separator(text, newline) + render_servers(tables).replace("\n", newline)
    existing = before.get(_SERVERS, {})
    try:
        after: object = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = None
    if not isinstance(existing, dict) or after != _plain({**before, _SERVERS: {**existing, **tables}}):
        raise ConfigWriteError(
            f"cannot add [{_SERVERS}.<name>] tables to {path}: it defines `{_SERVERS}` in another way (an "
            f"inline table, dotted keys or a value); write each server as a [{_SERVERS}.<name>] table, "
            "then import again"
        )
    return result


_CHECK_HINT = " (`tabgate-host config check` shows where)"


def _read_both(path: Path, text: str, hint: str) -> tuple[dict[str, Any], tomlkit.TOMLDocument]:
    """The text as plain data (to compare against) and as a tomlkit document (to edit)."""
    try:
        return tomllib.loads(text), tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise ConfigWriteError(f"{path} is not valid TOML ({exc}); fix it first{hint}") from exc


def _server_table(path: Path, before: dict[str, Any], server: str, what: str) -> dict[str, Any]:
    servers = before.get(_SERVERS)
    if not isinstance(servers, dict) or not isinstance(servers.get(server), dict):
        raise ConfigWriteError(f"{path} has no [{_SERVERS}.{server}] table to {what}")
    table: dict[str, Any] = servers[server]
    return table


def with_server_enabled(path: Path, text: str, server: str, enabled: bool) -> str:
    """The config text with `[mcp_servers.<server>] enabled` set; every other byte is the user's, and the
    result is read back and compared before anything is written."""
    before, document = _read_both(path, text, _CHECK_HINT)
    table = _server_table(path, before, server, "switch")
    document[_SERVERS][server]["enabled"] = enabled
    result = document.as_string()
    expected = {**before, _SERVERS: {**before[_SERVERS], server: {**table, "enabled": enabled}}}
    if tomllib.loads(result) != expected:
        raise ConfigWriteError(
            f"cannot switch [{_SERVERS}.{server}] in {path}: it is written in a way Tabgate cannot change "
            f"safely; set `enabled = {str(enabled).lower()}` there by hand"
        )
    return result


def with_server_updated(
    path: Path, text: str, server: str, values: Mapping[str, object], dropped: tuple[str, ...] = ()
) -> str:
    """The text with `values` set in `[mcp_servers.<server>]` and the `dropped` keys taken out of it; the
    table's other keys and every other byte stay the user's, and the result is read back and compared."""
    problems = unrepresentable(path, server, values)
    if problems:
        raise ConfigWriteError("; ".join(str(problem) for problem in problems), problems)
    before, _document = _read_both(path, text, "")
    table = _server_table(path, before, server, "change")
    for key in dropped:  # as [mcp_servers.<server>.<key>] tables: by text, so the comments after them stay
        text = _drop_tables(text, [_SERVERS, server, key])
    document = tomlkit.parse(text)
    edited = document[_SERVERS][server]
    for key in dropped:
        if key in edited:
            del edited[key]
    for key, value in values.items():
        _set_in_table(edited, key, _item(value), "\r\n" if "\r\n" in text else "\n")
    result = document.as_string()
    kept = {key: value for key, value in table.items() if key not in dropped}
    expected = {**before, _SERVERS: {**before[_SERVERS], server: {**kept, **values}}}
    if tomllib.loads(result) != _plain(expected):
        raise ConfigWriteError(
            f"cannot change [{_SERVERS}.{server}] in {path}: it is written in a way Tabgate cannot change "
            "safely; remove that table by hand, then try again"
        )
    return result


def _set_in_table(table: Any, key: str, item: Any, newline: str) -> None:
    """`key` set in `table`; a new key goes after the table's last key (tomlkit would append it after the
    blank lines and the comment that belong to the next table), ending its line as the file does."""
    keys = [k.key for k, _ in table.value.body if k is not None]
    if key in keys or not keys:
        table[key] = item
        return
    item = tomlkit.item(item)
    item.trivia.trail = newline
    table.value._insert_after(keys[-1], key, item)  # tomlkit has no public "insert after"


def _header_path(line: str) -> list[str] | None:
    """The dotted name of a `[table]` header line (None for other lines and `[[arrays]]`)."""
    if not line.lstrip().startswith("[") or line.lstrip().startswith("[["):
        return None
    try:
        node: object = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        path.append(key)
    return path


def _content(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _drop_tables(text: str, prefix: list[str]) -> str:
    """The text without the tables named `prefix` or under it, each from its header to its last key: the
    comments after that (they introduce what follows) and every other byte stay."""
    kept: list[str] = []
    pending: list[str] = []  # comments and blank lines after the last key of a dropped table
    dropping = False

    def settle() -> None:
        # One blank line between what stays, not two.
        if dropping and kept and not kept[-1].strip() and (not pending or not pending[0].strip()):
            del (pending or kept)[0 if pending else -1]
        kept.extend(pending)
        pending.clear()

    for line in text.splitlines(keepends=True):
        header = _header_path(line)
        if header is not None:
            settle()
            dropping = header[: len(prefix)] == prefix
            if dropping:
                continue
        if not dropping:
            kept.append(line)
        elif _content(line):
            pending.clear()
        else:
            pending.append(line)
    settle()
    return "".join(kept)


def with_server_removed(path: Path, text: str, server: str) -> str:
    """The text without `[mcp_servers.<server>]` and its sub-tables; read back and compared before anything
    is written."""
    before, _document = _read_both(path, text, "")
    _server_table(path, before, server, "remove")
    result = _drop_tables(text, [_SERVERS, server])
    rest = {name: table for name, table in before[_SERVERS].items() if name != server}
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = {}
    # Taking out the last server also takes out the `[mcp_servers]` it implied.
    if {**after, _SERVERS: after.get(_SERVERS, {})} != {**before, _SERVERS: rest}:
        raise ConfigWriteError(
            f"cannot remove [{_SERVERS}.{server}] from {path}: it is written in a way Tabgate cannot change "
            "safely; remove it by hand"
        )
    return result


def _plain(value: object) -> object:
    """Tuples as lists, as tomllib reads arrays back."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def write_config(path: Path, text: str) -> None:
    """Replace the config with `text`, whole or not at all; its mode kept or tightened (new: 0600)."""
    write_atomically(path, text.encode("utf-8"), mode=kept_or_tightened(path))
