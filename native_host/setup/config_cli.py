"""`tabgate-host config path|show|check|import FILE`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from ..config.files import FileWriteError
from ..config.loading import HTTP_ONLY, STDIO_ONLY, ServerConfig, load_config
from ..config.redact import REDACTED, redact_url
from ..config.secret_args import redact_args
from ..config.writing import ConfigWriteError, render_servers
from .importer import merge_into, read_servers

# Keys shown by `config show`, in this order; values that can hold secrets are redacted.
_SHOWN = (
    "command",
    *STDIO_ONLY,
    "url",
    "transport",
    *HTTP_ONLY,
    "enabled",
    "required",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "handshake",
    "roots",
)
HIDDEN_NOTE = (
    f"# values are hidden ({REDACTED}): env and http_headers values, URL passwords and query values, "
    "and arguments that look like secrets"
)


def redacted(server: ServerConfig) -> dict[str, Any]:
    """The server as `config show` prints it: env and header values, URL secrets and secret-looking
    arguments replaced. `env_http_headers` and `bearer_token_env_var` name variables, so they are shown."""
    data = server.model_dump(exclude_defaults=True, exclude={"name"})
    data["transport"] = server.transport
    if "env" in data:
        data["env"] = {key: REDACTED for key in data["env"]}
    if "http_headers" in data:
        data["http_headers"] = {key: REDACTED for key in data["http_headers"]}
    if "url" in data:
        data["url"] = redact_url(data["url"])
    if "args" in data:
        data["args"] = redact_args(data["args"])
    return {key: data[key] for key in _SHOWN if key in data}


def config_path(path: Path) -> int:
    state = "exists" if path.is_file() else "does not exist yet (tabgate-host install writes a default)"
    print(f"{path}  ({state})")
    return 0


def config_show(path: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    loaded = load_config(path)
    print(f"# {path}", file=out)
    print(HIDDEN_NOTE, file=out)
    if not loaded.exists:
        print("# (no config file: no servers)", file=out)
    rendered = render_servers({name: redacted(server) for name, server in loaded.servers.items()})
    print(rendered, end="", file=out)
    for problem in loaded.problems:
        print(f"problem: {problem}", file=err)
    return 1 if loaded.problems else 0


def config_check(path: Path, out: TextIO = sys.stdout) -> int:
    loaded = load_config(path)
    for problem in loaded.problems:
        print(f"problem: {problem}", file=out)
    if not loaded.exists:
        print(f"{path} does not exist: no servers are configured", file=out)
        return 0
    names = ", ".join(sorted(loaded.servers)) or "none"
    print(f"{path}: {len(loaded.servers)} valid server(s): {names}", file=out)
    return 1 if loaded.problems else 0


def config_import(source: Path, path: Path, out: TextIO = sys.stdout) -> int:
    """Exit code 1 when anything in `source` was not imported (a problem, a conflict, a failed write)."""
    found = read_servers(source)
    for note in found.notes:
        print(f"note: {note}", file=out)
    for problem in found.problems:
        print(f"skipped: {problem}", file=out)
    try:
        merge = merge_into(path, found.tables)
    except (ConfigWriteError, FileWriteError) as exc:
        print(f"error: {exc}", file=out)
        print(f"0 server(s) added; {path} was left unchanged", file=out)
        return 1
    for name in merge.unchanged:
        print(f"{name}: already in {path} with the same settings", file=out)
    for name in merge.conflicts:
        print(
            f"conflict: {name} (already in {path} with other settings; left unchanged — rename it in "
            f"{source} or remove it from {path} to import it)",
            file=out,
        )
    for name in merge.added:
        print(f"added: {name}", file=out)
    print(f"{len(merge.added)} server(s) added to {path}", file=out)
    return 1 if found.problems or merge.conflicts else 0
