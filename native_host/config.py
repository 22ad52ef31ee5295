"""The host's TOML config (contract §3): codex's `[mcp_servers.<name>]` keys, validated with pydantic.

Every problem is reported with file, server and key; a server with a problem is not started (never
half-applied) and the valid ones are served."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .preview import infer_transport
from .status import Transport

NAME_PATTERN: Final = r"^[a-zA-Z0-9_-]+$"
DEFAULT_STARTUP_TIMEOUT_SEC: Final = 10.0
DEFAULT_TOOL_TIMEOUT_SEC: Final = 60.0
STDIO_ONLY: Final = ("args", "env", "env_vars", "cwd")
HTTP_ONLY: Final = ("bearer_token_env_var", "http_headers", "env_http_headers")
# codex keys that have no meaning here: accepted so a codex config can be pasted in, then ignored.
IGNORED_CODEX_KEYS: Final = frozenset(
    {"supports_parallel_tool_calls", "scopes", "oauth_resource", "tool_approval"}
)


class ServerConfig(BaseModel):
    """One server, after transport inference and every cross-field check."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    env_vars: tuple[str, ...] = ()  # names of host environment variables passed through to a stdio server
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] = Field(default_factory=dict)
    env_http_headers: dict[str, str] = Field(default_factory=dict)  # header name -> environment variable name
    enabled: bool = True
    required: bool = (
        False  # a required server that fails makes `doctor` fail; the host still serves the others
    )
    startup_timeout_sec: float = Field(default=DEFAULT_STARTUP_TIMEOUT_SEC, gt=0, allow_inf_nan=False)
    tool_timeout_sec: float = Field(default=DEFAULT_TOOL_TIMEOUT_SEC, gt=0, allow_inf_nan=False)
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    handshake: Literal["legacy", "auto"] = (
        "legacy"  # "auto" tries the 2026 discover probe first (can cost 10 s)
    )

    def allows_tool(self, tool: str) -> bool:
        """codex's filter: the allow-list (when non-empty) first, then the deny-list."""
        allowed = not self.enabled_tools or tool in self.enabled_tools
        return allowed and tool not in self.disabled_tools


class _RawServer(BaseModel):
    """A `[mcp_servers.<name>]` table as written, before transport inference."""

    model_config = ConfigDict(extra="forbid")

    transport: Literal["stdio", "streamable_http", "sse"] | None = None
    command: str | None = Field(default=None, min_length=1)
    args: list[str] | None = None
    env: dict[str, str] | None = None
    env_vars: list[str] | None = None
    cwd: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    bearer_token_env_var: str | None = Field(default=None, min_length=1)
    http_headers: dict[str, str] | None = None
    env_http_headers: dict[str, str] | None = None
    enabled: bool = True
    required: bool = False
    startup_timeout_sec: float | None = None
    startup_timeout_ms: int | None = Field(default=None, gt=0)
    tool_timeout_sec: float | None = None
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] | None = None
    handshake: Literal["legacy", "auto"] = "legacy"

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        transport = self.transport or infer_transport(self.model_dump(exclude_none=True))
        if transport == "stdio":
            if self.command is None:
                raise ValueError("a server needs `command` (stdio) or `url` (streamable HTTP, or SSE)")
            misplaced = [key for key in ("url", *HTTP_ONLY) if getattr(self, key) is not None]
            if misplaced:
                raise ValueError(f"`{misplaced[0]}` is not supported for stdio (this server has `command`)")
        else:
            if self.url is None:
                raise ValueError(f"transport {transport!r} needs `url`")
            misplaced = [key for key in ("command", *STDIO_ONLY) if getattr(self, key) is not None]
            if misplaced:
                raise ValueError(f"`{misplaced[0]}` is not supported for {transport} (this server has `url`)")
        if self.startup_timeout_sec is not None and self.startup_timeout_ms is not None:
            raise ValueError("set `startup_timeout_sec` or `startup_timeout_ms`, not both")
        return self

    def resolve(self, name: str) -> ServerConfig:
        startup = self.startup_timeout_sec
        if self.startup_timeout_ms is not None:
            startup = self.startup_timeout_ms / 1000
        values: dict[str, Any] = {
            key: value
            for key, value in self.model_dump(exclude_none=True).items()
            if key not in ("startup_timeout_ms", "startup_timeout_sec", "transport")
        }
        if startup is not None:
            values["startup_timeout_sec"] = startup
        transport = self.transport or infer_transport(self.model_dump(exclude_none=True))
        return ServerConfig(name=name, transport=transport, **values)


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    file: Path
    server: str | None
    key: str | None
    message: str

    def __str__(self) -> str:
        where = str(self.file)
        if self.server is not None:
            where += f": [mcp_servers.{self.server}]"
        if self.key:
            where += f" {self.key}"
        return f"{where}: {self.message}"


@dataclass(slots=True)
class LoadedConfig:
    path: Path
    exists: bool
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    invalid: dict[str, Transport] = field(default_factory=dict)  # named servers that could not be used
    problems: list[ConfigProblem] = field(default_factory=list)

    def problems_for(self, server: str) -> list[ConfigProblem]:
        return [p for p in self.problems if p.server == server]


def _problems(path: Path, server: str, error: ValidationError) -> list[ConfigProblem]:
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        key = ".".join(str(part) for part in item["loc"]) or None
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown key (check its spelling)"
        problems.append(ConfigProblem(path, server, key, message))
    return problems


def parse_servers(path: Path, tables: Mapping[str, object], loaded: LoadedConfig) -> None:
    """Validate each `[mcp_servers.<name>]` table into `loaded` (servers, invalid names, problems)."""
    for name, table in tables.items():
        if not isinstance(table, dict):
            loaded.problems.append(ConfigProblem(path, name, None, "must be a table"))
            loaded.invalid[name] = "stdio"
            continue
        usable = {key: value for key, value in table.items() if key not in IGNORED_CODEX_KEYS}
        if "bearer_token" in usable:
            loaded.problems.append(
                ConfigProblem(
                    path,
                    name,
                    "bearer_token",
                    "tokens are not stored in the config; put it in an environment variable and name that "
                    "variable in `bearer_token_env_var`",
                )
            )
            loaded.invalid[name] = infer_transport(table)
            continue
        if not re.fullmatch(NAME_PATTERN, name):
            loaded.problems.append(
                ConfigProblem(path, name, None, "server names may use only letters, digits, '_' and '-'")
            )
            loaded.invalid[name] = infer_transport(table)
            continue
        try:
            loaded.servers[name] = _RawServer.model_validate(usable).resolve(name)
        except ValidationError as exc:
            loaded.problems.extend(_problems(path, name, exc))
            loaded.invalid[name] = infer_transport(table)


def load_config(path: Path) -> LoadedConfig:
    loaded = LoadedConfig(path, exists=path.is_file())
    if not loaded.exists:
        return loaded
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        loaded.problems.append(ConfigProblem(path, None, None, f"cannot read the file: {exc}"))
        return loaded
    except tomllib.TOMLDecodeError as exc:
        loaded.problems.append(ConfigProblem(path, None, None, f"not valid TOML: {exc}"))
        return loaded
    tables = data.get("mcp_servers", {})
    if not isinstance(tables, dict):
        loaded.problems.append(ConfigProblem(path, None, "mcp_servers", "must be a table of servers"))
        return loaded
    parse_servers(path, tables, loaded)
    return loaded


def toml_string(value: str) -> str:
    # JSON's string escapes (\" \\ \n \uXXXX ...) are all valid in a TOML basic string.
    return json.dumps(value, ensure_ascii=False)


def default_config_text(python: str) -> str:
    return (
        "# Tabgate native host configuration: the same keys as codex's [mcp_servers.<name>].\n"
        "# Check it with `tabgate-host config check`; add servers with `tabgate-host config import FILE`.\n\n"
        "[mcp_servers.notes]  # the bundled notes server (SQLite in the Tabgate data folder)\n"
        f"command = {toml_string(python)}\n"
        'args = ["-P", "-m", "native_host.notes_server"]\n'
        "# passed on when set, so a host run with TABGATE_DATA_DIR keeps its notes there too\n"
        'env_vars = ["TABGATE_DATA_DIR"]\n'
    )


def write_default_config(path: Path, python: str) -> bool:
    """Create the config with the bundled notes server; False (and nothing written) when one exists."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(default_config_text(python), encoding="utf-8")
    return True
