"""`tabgate-host config import FILE`: servers from Claude Desktop / Cursor / VS Code JSON or a codex TOML,
validated, then appended to the user's config (existing servers are left alone); and the TOML writer."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import ConfigProblem, LoadedConfig, load_config, parse_servers, toml_string

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


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{toml_string(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render_tables(tables: Mapping[str, Mapping[str, object]]) -> str:
    blocks = []
    for name, table in tables.items():
        lines = [f"[mcp_servers.{name}]"]
        lines += [f"{key} = {toml_value(value)}" for key, value in table.items()]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


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
        table: dict[str, Any] = {}
        for key, value in entry.items():
            if key in _JSON_KEYS:
                table[_JSON_KEYS[key]] = value
            elif key == "type" and value == "sse":
                table["transport"] = "sse"
            elif key == "type" and value in _HTTP_TYPES | {"stdio"}:
                pass  # implied by `url` or `command`
            elif key == "disabled" and isinstance(value, bool):
                table["enabled"] = not value
            elif key == "enabled" and isinstance(value, bool):
                table["enabled"] = value
            else:
                result.notes.append(f"{name}: ignored {key!r} (no Tabgate equivalent)")
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
    result.tables = {name: dict(renamed[name]) for name in checked.servers}  # type: ignore[call-overload]
    return result


def merge_into(config: Path, tables: Mapping[str, Mapping[str, object]]) -> tuple[list[str], list[str]]:
    """Append the servers not yet configured; returns (added, already there)."""
    existing = set(load_config(config).servers) | set(load_config(config).invalid)
    added = [name for name in tables if name not in existing]
    skipped = [name for name in tables if name in existing]
    if added:
        config.parent.mkdir(parents=True, exist_ok=True)
        before = config.read_text(encoding="utf-8") if config.exists() else ""
        separator = (
            "" if not before or before.endswith("\n\n") else ("\n" if before.endswith("\n") else "\n\n")
        )
        text = before + separator + render_tables({name: tables[name] for name in added})
        # Imported servers may carry tokens in `env` or headers: the file is for this user only.
        descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
        if os.name != "nt":
            config.chmod(0o600)
    return added, skipped
