"""The host's TOML config (contract §3): codex's `[mcp_servers.<name>]` keys, validated with pydantic.

Every problem is reported with file, server and key; a server with a problem is not started (never
half-applied) and the valid ones are served."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlsplit

import tomlkit
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from core.calls.capabilities import Transport

from .files import PRIVATE_FILE, write_atomically
from .preview import DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC, MAX_TIMEOUT_SEC, infer_transport

NAME_PATTERN: Final = r"^[a-zA-Z0-9_-]+$"
STDIO_ONLY: Final = ("args", "env", "env_vars", "cwd")
HTTP_ONLY: Final = (
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "oauth_client_id",
    "oauth_client_secret_env_var",
    "oauth_scopes",
    "oauth_client_metadata_url",
)
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
    # OAuth (contract §4): a client registered by hand (its secret in an environment variable), the scopes
    # asked at the first sign-in, and a client ID metadata document used where the server supports it.
    oauth_client_id: str | None = None
    oauth_client_secret_env_var: str | None = None
    oauth_scopes: tuple[str, ...] = ()
    oauth_client_metadata_url: str | None = None
    enabled: bool = True
    required: bool = (
        False  # a required server that fails makes `doctor` fail; the host still serves the others
    )
    startup_timeout_sec: float = Field(
        default=DEFAULT_STARTUP_TIMEOUT_SEC, gt=0, le=MAX_TIMEOUT_SEC, allow_inf_nan=False
    )
    tool_timeout_sec: float = Field(
        default=DEFAULT_TOOL_TIMEOUT_SEC, gt=0, le=MAX_TIMEOUT_SEC, allow_inf_nan=False
    )
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    # "auto": the 2026-07-28 `server/discover` probe first (bounded to 0.5 s, handshake.py), then
    # `initialize` (an initialize-era server costs at most that bound more); "legacy": `initialize` only.
    handshake: Literal["legacy", "auto"] = "auto"
    # Folders the server may work in (MCP roots), absolute and checked to exist when the config was read;
    # only a server with roots is told the client has them (contract §3).
    roots: tuple[str, ...] = ()

    def allows_tool(self, tool: str) -> bool:
        """codex's filter: the allow-list (when non-empty) first, then the deny-list."""
        allowed = not self.enabled_tools or tool in self.enabled_tools
        return allowed and tool not in self.disabled_tools


def _no_nul(value: str) -> str:
    if "\0" in value:
        raise ValueError("contains a NUL character, which no command line or environment can hold")
    return value


# Text handed to a process (command, arguments, environment, folder).
type ProcessText = Annotated[str, AfterValidator(_no_nul)]


def _scope_token(value: str) -> str:
    # RFC 6749 §3.3: a scope is one token of printable ASCII without spaces, quotes or backslashes.
    if not re.fullmatch(r"[\x21\x23-\x5b\x5d-\x7e]+", value):
        raise ValueError("each scope must be one word (no spaces, quotes or backslashes)")
    return value


def _metadata_url(value: str) -> str:
    # The SDK takes a client ID metadata document only from an https URL with a path (it is the client_id).
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/"):
        raise ValueError("must be an https URL with a path (the client ID metadata document's address)")
    return value


def _root_folder(value: str) -> str:
    """A `roots` entry: `~` expanded, absolute, an existing folder; the message names the path."""
    try:
        path = Path(value).expanduser()
    except RuntimeError:  # `~name` of no known user
        raise ValueError(f"{value!r}: no such user's home folder") from None
    named = repr(value) if str(path) == value else f"{value!r} ({path})"
    if not path.is_absolute():
        raise ValueError(f"{named} is not an absolute path (start it with / or ~)")
    if not path.exists():
        raise ValueError(f"{named} does not exist: create the folder or remove it from `roots`")
    if not path.is_dir():
        raise ValueError(f"{named} is not a folder: name a folder, or remove it from `roots`")
    return str(path)


class _RawServer(BaseModel):
    """A `[mcp_servers.<name>]` table as written, before transport inference. Strict: nothing is coerced
    (`"10"` is not a number, `true` is not a number, `1` is not a string)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    transport: Transport | None = None
    command: ProcessText | None = Field(default=None, min_length=1)
    args: list[ProcessText] | None = None
    env: dict[ProcessText, ProcessText] | None = None
    env_vars: list[ProcessText] | None = None
    cwd: ProcessText | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    bearer_token_env_var: str | None = Field(default=None, min_length=1)
    http_headers: dict[str, str] | None = None
    env_http_headers: dict[str, str] | None = None
    oauth_client_id: str | None = Field(default=None, min_length=1)
    oauth_client_secret_env_var: str | None = Field(default=None, min_length=1)
    oauth_scopes: list[Annotated[str, AfterValidator(_scope_token)]] | None = None
    oauth_client_metadata_url: Annotated[str, AfterValidator(_metadata_url)] | None = None
    enabled: bool = True
    required: bool = False
    startup_timeout_sec: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SEC, allow_inf_nan=False)
    startup_timeout_ms: int | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SEC * 1000)
    tool_timeout_sec: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SEC, allow_inf_nan=False)
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] | None = None
    handshake: Literal["legacy", "auto"] = "auto"
    roots: list[Annotated[ProcessText, AfterValidator(_root_folder)]] | None = None

    def transport_problems(self) -> list[tuple[str, str]]:
        """(key, message) for settings that do not fit together, each one named."""
        transport = self.transport or infer_transport(self.model_dump(exclude_none=True))
        problems: list[tuple[str, str]] = []
        if transport == "stdio":
            if self.command is None:
                problems.append(
                    ("command", "a server needs `command` (stdio) or `url` (streamable HTTP, or SSE)")
                )
            problems += [
                (key, f"`{key}` is not supported for stdio (this server has `command`)")
                for key in ("url", *HTTP_ONLY)
                if getattr(self, key) is not None
            ]
        else:
            if self.url is None:
                problems.append(("url", f"transport {transport!r} needs `url`"))
            problems += [
                (key, f"`{key}` is not supported for {transport} (this server has `url`)")
                for key in ("command", *STDIO_ONLY)
                if getattr(self, key) is not None
            ]
        if self.oauth_client_secret_env_var is not None and self.oauth_client_id is None:
            problems.append(("oauth_client_secret_env_var", "a client secret needs its `oauth_client_id`"))
        if self.startup_timeout_sec is not None and self.startup_timeout_ms is not None:
            problems.append(
                ("startup_timeout_ms", "set `startup_timeout_sec` or `startup_timeout_ms`, not both")
            )
        return problems

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


_EXPECTED: Final = {
    "float_type": "a number",
    "int_type": "an integer",
    "string_type": "a string",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a table",
}


def type_name(value: object) -> str:
    """What a TOML (or JSON) value is, in the words a config's author uses."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def _key(location: tuple[int | str, ...]) -> str | None:
    parts = [str(part) for part in location if part != "[key]"]
    return ".".join(part if part.isprintable() else ascii(part) for part in parts) or None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _message(item: ErrorDetails) -> str:
    """pydantic's error in config words; never the value itself, which may be a secret."""
    kind = item["type"]
    context = item.get("ctx", {})
    if kind in _EXPECTED:
        return f"must be {_EXPECTED[kind]}, not {type_name(item.get('input'))}"
    if kind == "extra_forbidden":
        return "unknown key (check its spelling)"
    if kind == "less_than_equal":
        unit = {"_sec": " seconds (one day)", "_ms": " milliseconds (one day)"}
        key = str(item["loc"][0]) if item["loc"] else ""
        suffix = next((text for end, text in unit.items() if key.endswith(end)), "")
        return f"must be at most {_number(context['le'])}{suffix}"
    if kind == "greater_than":
        return f"must be greater than {_number(context['gt'])}"
    if kind == "finite_number":
        return "must be a finite number"
    return item["msg"].removeprefix("Value error, ")


def _problems(path: Path, server: str, error: ValidationError) -> list[ConfigProblem]:
    return [
        ConfigProblem(path, server, _key(item["loc"]), _message(item))
        for item in error.errors(include_url=False)
    ]


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
            raw = _RawServer.model_validate(usable)
        except ValidationError as exc:
            loaded.problems.extend(_problems(path, name, exc))
            loaded.invalid[name] = infer_transport(table)
            continue
        mismatched = raw.transport_problems()
        if mismatched:
            loaded.problems += [ConfigProblem(path, name, key, message) for key, message in mismatched]
            loaded.invalid[name] = infer_transport(table)
            continue
        loaded.servers[name] = raw.resolve(name)


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


def default_config_text(python: str) -> str:
    return (
        "# Tabgate native host configuration: the same keys as codex's [mcp_servers.<name>].\n"
        "# Check it with `tabgate-host config check`; add servers with `tabgate-host config import FILE`.\n\n"
        "[mcp_servers.notes]  # the bundled notes server (SQLite in the Tabgate data folder)\n"
        f"command = {tomlkit.string(python).as_string()}\n"
        'args = ["-P", "-m", "native_host.notes_server"]\n'
        "# passed on when set, so a host run with TABGATE_DATA_DIR keeps its notes there too\n"
        'env_vars = ["TABGATE_DATA_DIR"]\n'
    )


def write_default_config(path: Path, python: str) -> bool:
    """Create the config with the bundled notes server, readable by the user only; False (and nothing
    written) when one exists. Raises FileWriteError when it cannot be written."""
    if path.exists():
        return False
    write_atomically(path, default_config_text(python).encode("utf-8"), mode=PRIVATE_FILE)
    return True
