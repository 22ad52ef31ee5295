"""`tabgate-host config path|show|check|import FILE`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from .config import ServerConfig, load_config
from .importer import read_servers, render_tables
from .redact import REDACTED, redact_url

# Keys shown by `config show`, in this order; values that can hold secrets are redacted.
_SHOWN = (
    "command",
    "args",
    "env",
    "env_vars",
    "cwd",
    "url",
    "transport",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "enabled",
    "required",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "handshake",
)


def redacted(server: ServerConfig) -> dict[str, Any]:
    """The server as `config show` prints it: env and header values, and URL secrets, replaced."""
    data = server.model_dump(exclude_defaults=True, exclude={"name"})
    data["transport"] = server.transport
    if "env" in data:
        data["env"] = {key: REDACTED for key in data["env"]}
    if "http_headers" in data:
        data["http_headers"] = {key: REDACTED for key in data["http_headers"]}
    if "url" in data:
        data["url"] = redact_url(data["url"])
    return {key: data[key] for key in _SHOWN if key in data}


def config_path(path: Path) -> int:
    state = "exists" if path.is_file() else "does not exist yet (tabgate-host install writes a default)"
    print(f"{path}  ({state})")
    return 0


def config_show(path: Path, out: TextIO = sys.stdout) -> int:
    loaded = load_config(path)
    print(f"# {path}", file=out)
    if not loaded.exists:
        print("# (no config file: no servers)", file=out)
    print(
        render_tables({name: redacted(server) for name, server in loaded.servers.items()}), end="", file=out
    )
    for problem in loaded.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if loaded.problems else 0


def config_check(path: Path) -> int:
    loaded = load_config(path)
    for problem in loaded.problems:
        print(f"problem: {problem}")
    if not loaded.exists:
        print(f"{path} does not exist: no servers are configured")
        return 0
    names = ", ".join(sorted(loaded.servers)) or "none"
    print(f"{len(loaded.servers)} valid server(s): {names}")
    return 1 if loaded.problems else 0


def config_import(source: Path, path: Path) -> int:
    from .importer import merge_into

    found = read_servers(source)
    for note in found.notes:
        print(f"note: {note}")
    for problem in found.problems:
        print(f"skipped: {problem}")
    added, skipped = merge_into(path, found.tables)
    for name in skipped:
        print(f"skipped: {name} (already in {path}; left unchanged)")
    for name in added:
        print(f"added: {name}")
    print(f"{len(added)} server(s) added to {path}")
    return 1 if found.problems else 0
