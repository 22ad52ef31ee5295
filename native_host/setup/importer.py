"""`tabgate-host config import FILE`: servers from Claude Desktop / Cursor / VS Code JSON or a codex TOML,
validated with the config's own strict rules, then added to the user's config.

Name clashes are never resolved silently: a server already configured with the same settings is reported as
already there; one with other settings is reported as a conflict and left as the user wrote it."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config.loading import ConfigProblem, LoadedConfig, load_config, parse_servers, type_name
from ..config.writing import ConfigWriteError, unrepresentable, with_servers_added, write_config

# JSON keys (Claude Desktop, Cursor, VS Code) that map onto ours.
_JSON_KEYS = {
    "command": "command",
    "args": "args",
    "env": "env",
    "cwd": "cwd",
    "url": "url",
    "headers": "http_headers",
}
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamableHttp"}


@dataclass(slots=True)
class ImportResult:
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # valid servers, ready to write
    notes: list[str] = field(default_factory=list)  # renames, ignored keys
    problems: list[ConfigProblem] = field(default_factory=list)


def _json_table(
    path: Path, name: str, entry: Mapping[str, object], result: ImportResult
) -> dict[str, Any] | None:
    """One JSON server in our keys; None (with the problem recorded) when it cannot be imported."""
    table: dict[str, Any] = {}
    for key, value in entry.items():
        if value is None:
            continue  # JSON null: not set
        if key in _JSON_KEYS:
            table[_JSON_KEYS[key]] = value
        elif key == "type":
            if value == "sse":
                table["transport"] = "sse"
            elif value not in _HTTP_TYPES | {"stdio"}:  # http and stdio are implied by `url` or `command`
                result.problems.append(
                    ConfigProblem(
                        path, name, "type", f"{value!r} is not a transport Tabgate knows (stdio, http, sse)"
                    )
                )
                return None
        elif key in ("disabled", "enabled"):
            if not isinstance(value, bool):
                message = f"must be true or false, not {type_name(value)}"
                result.problems.append(ConfigProblem(path, name, key, message))
                return None
            table["enabled"] = value if key == "enabled" else not value
        else:
            result.notes.append(f"{name}: ignored {key!r} (no Tabgate equivalent)")
    return table


def _from_json(path: Path, data: object, result: ImportResult) -> dict[str, object]:
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        result.problems.append(
            ConfigProblem(path, None, "mcpServers", 'expected {"mcpServers": {"name": {...}}}')
        )
        return {}
    tables: dict[str, object] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            tables[name] = entry  # reported by validation
            continue
        table = _json_table(path, name, entry, result)
        if table is not None:
            tables[name] = table
    return tables


def read_servers(path: Path) -> ImportResult:
    """The servers in a foreign config file, validated with the same rules as ours."""
    result = ImportResult()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        result.problems.append(ConfigProblem(path, None, None, f"cannot read the file: {exc}"))
        return result
    raw: Mapping[str, object]
    if path.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            result.problems.append(ConfigProblem(path, None, None, f"not valid TOML: {exc}"))
            return result
        found = data.get("mcp_servers", {})
        raw = found if isinstance(found, dict) else {}
    else:
        try:
            raw = _from_json(path, json.loads(text), result)
        except ValueError as exc:
            result.problems.append(ConfigProblem(path, None, None, f"not valid JSON: {exc}"))
            return result
    renamed: dict[str, object] = {}
    for name, table in raw.items():
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "server"
        if safe != name:
            result.notes.append(f"renamed {name!r} to {safe!r} (names may use letters, digits, '_' and '-')")
        renamed[safe] = table
    checked = LoadedConfig(path, exists=True)
    parse_servers(path, renamed, checked)
    result.problems += checked.problems
    for name in checked.servers:
        table = dict(renamed[name])  # type: ignore[call-overload]
        cannot = unrepresentable(path, name, table)
        if cannot:
            result.problems += cannot
        else:
            result.tables[name] = table
    return result


@dataclass(slots=True)
class Merge:
    added: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # already configured with the same settings
    conflicts: list[str] = field(default_factory=list)  # already configured otherwise: left as they are


def merge_into(config: Path, tables: Mapping[str, Mapping[str, object]]) -> Merge:
    """Add the servers not configured yet, in one atomic write; raises ConfigWriteError or FileWriteError
    (the config then unchanged)."""
    current = load_config(config)
    imported = LoadedConfig(config, exists=True)
    parse_servers(config, tables, imported)
    merge = Merge()
    for name in tables:
        if name in current.servers and current.servers[name] == imported.servers.get(name):
            merge.unchanged.append(name)
        elif name in current.servers or name in current.invalid:
            merge.conflicts.append(name)
        else:
            merge.added.append(name)
    if merge.added:
        try:
            # Bytes, not read_text: universal newlines would turn the user's CRLF into LF.
            text = config.read_bytes().decode("utf-8") if config.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigWriteError(f"cannot read {config}: {exc}") from exc
        write_config(config, with_servers_added(config, text, {name: tables[name] for name in merge.added}))
    return merge
