"""`tabgate-host connect AGENT`: add Tabgate (`tabgate-host mcp` of this install) to an agent's MCP config, or
take it out (`--remove`), or show the change (`--print`).

The file stays the user's: JSON is edited in place (only the `tabgate` entry's text changes; every other key,
its order and layout are kept), TOML through tomlkit (comments kept), the result is read back and compared
before it replaces the file atomically, mode kept (new files 0600), written through a symlink to its target.
The entry is Tabgate's: `command` and `args` are set, an `env` is dropped (the socket is found without one),
any other key the user added (timeouts, `disabled`) is kept."""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
import sys
import sysconfig
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from ..config.files import PRIVATE_FILE, FileWriteError, write_atomically
from ..config.writing import ConfigWriteError, with_server_removed, with_server_updated, with_servers_added
from .locations import Platform

type AgentName = Literal["codex", "claude-desktop", "claude-code", "cursor"]

SERVER_NAME: Final = "tabgate"
MCP_ARGS: Final = ("mcp",)
DROPPED_KEYS: Final = ("env",)  # set by hand to help `mcp` find the socket: now unneeded, and it misleads
UNCHANGED: Final = "; nothing was changed"
SWITCH_ON: Final = "turn on *Let agents on this computer use Tabgate* in the Tabgate popup"


class ConnectError(Exception):
    """Nothing was written: the agent's config cannot be read or changed safely; the message says why."""


class ConfigUnreadable(ConnectError):
    """The agent's config cannot be read or does not parse (the message names the file and the problem)."""


@dataclass(frozen=True, slots=True)
class Agent:
    name: AgentName
    title: str
    where: Callable[[Platform, Path, Mapping[str, str]], Path]  # (platform, home, environment) → the file
    toml: bool  # codex's `[mcp_servers.<name>]`; the others JSON `{"mcpServers": {...}}`
    entry: Mapping[str, object]  # what the agent's own tools write beside command and args
    restart: str  # what makes the agent read its config again

    @property
    def servers_key(self) -> str:
        return "mcp_servers" if self.toml else "mcpServers"


def _codex(_platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    codex_home = env.get("CODEX_HOME", "").strip()
    return (Path(codex_home).expanduser() if codex_home else home / ".codex") / "config.toml"


def _claude_desktop(platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    if platform == "darwin":
        return home / "Library/Application Support/Claude/claude_desktop_config.json"
    xdg = env.get("XDG_CONFIG_HOME", "")  # Electron's appData on Linux
    return (Path(xdg) if xdg.startswith("/") else home / ".config") / "Claude/claude_desktop_config.json"


def _claude_code(_platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    folder = env.get("CLAUDE_CONFIG_DIR", "").strip()  # user scope: the top-level `mcpServers`
    return (Path(folder).expanduser() if folder else home) / ".claude.json"


def _cursor(_platform: Platform, home: Path, _env: Mapping[str, str]) -> Path:
    return home / ".cursor/mcp.json"


AGENTS: Final[Mapping[AgentName, Agent]] = {
    "codex": Agent("codex", "codex", _codex, True, {}, "restart codex"),
    "claude-desktop": Agent(
        "claude-desktop",
        "Claude Desktop",
        _claude_desktop,
        False,
        {},
        "quit Claude Desktop and open it again",
    ),
    "claude-code": Agent(
        "claude-code",
        "Claude Code",
        _claude_code,
        False,
        {"type": "stdio"},
        "start a new Claude Code session",
    ),
    "cursor": Agent("cursor", "Cursor", _cursor, False, {}, "restart Cursor"),
}


@dataclass(frozen=True, slots=True)
class AgentFile:
    agent: Agent
    path: Path


def agent_files(platform: Platform, home: Path, env: Mapping[str, str]) -> list[AgentFile]:
    return [AgentFile(agent, agent.where(platform, home, env)) for agent in AGENTS.values()]


def host_script() -> Path:
    """This install's `tabgate-host`: the console script pip put beside this interpreter's environment.

    Raises ConnectError when it is not there (the package was not installed with its scripts)."""
    name = "tabgate-host.exe" if os.name == "nt" else "tabgate-host"
    folders = [Path(sysconfig.get_path("scripts"))]
    if sys.prefix == sys.base_prefix:  # not a virtualenv: `pip install --user` puts scripts elsewhere
        folders.append(Path(sysconfig.get_path("scripts", f"{os.name}_user")))
    for folder in folders:
        if (folder / name).is_file():
            return (folder / name).absolute()
    looked = " and ".join(str(folder) for folder in folders)
    raise ConnectError(f"cannot find this install's {name} (looked in {looked}); reinstall Tabgate with pip")


# -- reading an agent's servers -----------------------------------------------------------------------------


def read_text(path: Path) -> str | None:
    """The file's text (bytes decoded, so CRLF stays CRLF), None when there is no file."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigUnreadable(f"cannot read {path}: {exc}") from None


def parse(file: AgentFile, text: str) -> dict[str, Any]:
    """The whole config as data; ConnectError naming the file and the problem when it does not parse."""
    if not text.strip():
        return {}
    try:
        data: object = tomllib.loads(text) if file.agent.toml else json.loads(text)
    except ValueError as exc:
        kind = "TOML" if file.agent.toml else "JSON"
        raise ConfigUnreadable(f"{file.path} is not valid {kind} ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigUnreadable(f"{file.path} does not hold a JSON object")
    return data


def names_tabgate(name: str, entry: object) -> bool:
    """Tabgate's entry, or any server whose command is a tabgate-host."""
    command = entry.get("command") if isinstance(entry, dict) else None
    return name == SERVER_NAME or (
        isinstance(command, str) and Path(command).name in ("tabgate-host", "tabgate-host.exe")
    )


def servers_of(file: AgentFile, data: Mapping[str, Any]) -> dict[str, Any]:
    servers = data.get(file.agent.servers_key, {})
    if not isinstance(servers, dict):
        raise ConfigUnreadable(f"{file.path}: `{file.agent.servers_key}` is not a table of servers")
    return servers


# -- editing JSON in place ----------------------------------------------------------------------------------

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


def _json_with_entry(text: str, servers_key: str, entry: Mapping[str, object]) -> str:
    newline = "\r\n" if "\r\n" in text else "\n"
    top = _object_at(text, _skip(text, 0))
    if not top.members:
        body = json.dumps({servers_key: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False)
        return text[: top.start] + body.replace("\n", newline) + text[top.end :]
    unit = _line_indent(text, top.members[0].key_start)
    servers = top.last(servers_key)
    if servers is None:  # a new last member of the top object, laid out like the one before it
        last = top.members[-1]
        indent = _line_indent(text, last.key_start)
        value = _render({SERVER_NAME: entry}, indent, unit, newline)
        gap = newline + indent if indent is not None else " "
        insert = f",{gap}{json.dumps(servers_key)}: {value}"
        return text[: last.value_end] + insert + text[last.value_end :]
    inner = _object_at(text, servers.value_start)
    current = inner.last(SERVER_NAME)
    if current is not None:
        value = _render(entry, _line_indent(text, current.key_start), unit, newline)
        return text[: current.value_start] + value + text[current.value_end :]
    if not inner.members:
        value = _render({SERVER_NAME: entry}, _line_indent(text, servers.key_start), unit, newline)
        return text[: inner.start] + value + text[inner.end :]
    last = inner.members[-1]
    indent = _line_indent(text, last.key_start)
    gap = newline + indent if indent is not None else " "
    insert = f",{gap}{json.dumps(SERVER_NAME)}: {_render(entry, indent, unit, newline)}"
    return text[: last.value_end] + insert + text[last.value_end :]


def _json_without_entry(text: str, servers_key: str) -> str:
    """Every `tabgate` member taken out of the servers object, with the comma and layout around it."""
    while True:
        top = _object_at(text, _skip(text, 0))
        servers = top.last(servers_key)
        if servers is None:
            return text
        inner = _object_at(text, servers.value_start)
        where = next((i for i, member in enumerate(inner.members) if member.key == SERVER_NAME), None)
        if where is None:
            return text
        member = inner.members[where]
        if len(inner.members) == 1:
            text = text[: inner.start] + "{}" + text[inner.end :]
        elif where > 0:
            text = text[: inner.members[where - 1].value_end] + text[member.value_end :]
        else:
            text = text[: member.key_start] + text[inner.members[1].key_start :]


# -- the command --------------------------------------------------------------------------------------------


def wanted_entry(agent: Agent, script: Path, current: object) -> dict[str, object]:
    """The `tabgate` entry to write: the user's other keys kept in their order, ours set."""
    kept = {k: v for k, v in current.items() if k not in DROPPED_KEYS} if isinstance(current, dict) else {}
    return {**kept, **agent.entry, "command": str(script), "args": list(MCP_ARGS)}


def changed_text(file: AgentFile, text: str | None, script: Path, remove: bool) -> str | None:
    """The file's new text (None: no file and nothing to write); raises ConnectError, changing nothing."""
    data = parse(file, text or "")
    servers = servers_of(file, data)
    if remove:
        if text is None or SERVER_NAME not in servers:
            return text
        expected = {**data, file.agent.servers_key: {k: v for k, v in servers.items() if k != SERVER_NAME}}
    else:
        entry = wanted_entry(file.agent, script, servers.get(SERVER_NAME))
        expected = {**data, file.agent.servers_key: {**servers, SERVER_NAME: entry}}
    try:
        result = _edited(file, text or "", servers, script, remove)
    except ConfigWriteError as exc:
        raise ConnectError(f"{exc}{UNCHANGED}") from None
    after = parse(file, result)
    key = file.agent.servers_key
    # Never write what would not read back as intended (an emptied TOML `[mcp_servers]` may go with its last).
    if {**after, key: after.get(key, {})} != expected:
        raise ConnectError(
            f"cannot change {file.path} safely (its `{file.agent.servers_key}` is written in a way Tabgate "
            f"cannot edit); add the `{SERVER_NAME}` server by hand, or run with --print to see it"
        )
    return result


def _edited(file: AgentFile, text: str, servers: Mapping[str, Any], script: Path, remove: bool) -> str:
    key = file.agent.servers_key
    if file.agent.toml:
        if remove:
            return with_server_removed(file.path, text, SERVER_NAME)
        entry = wanted_entry(file.agent, script, servers.get(SERVER_NAME))
        if SERVER_NAME in servers:
            return with_server_updated(file.path, text, SERVER_NAME, entry, DROPPED_KEYS)
        return with_servers_added(file.path, text, {SERVER_NAME: entry})
    if not text.strip():
        text = "{}\n"
    if remove:
        return _json_without_entry(text, key)
    return _json_with_entry(text, key, wanted_entry(file.agent, script, servers.get(SERVER_NAME)))


def _write(path: Path, before: str | None, after: str) -> None:
    """Replace the file whole, its mode kept (new: 0600), unless someone else changed it meanwhile."""
    if read_text(path) != before:
        raise ConnectError(f"{path} changed while Tabgate was editing it; nothing was written, try again")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = PRIVATE_FILE
    try:
        write_atomically(path, after.encode("utf-8"), mode=mode)
    except FileWriteError as exc:
        raise ConnectError(str(exc)) from None


def run_connect(file: AgentFile, *, remove: bool, show: bool, out: TextIO, err: TextIO) -> int:
    agent, path = file.agent, file.path
    try:
        script = host_script()
        before = read_text(path)
        after = changed_text(file, before, script, remove)
        if after == before:
            state = "has no tabgate entry" if remove else f"already runs {script} mcp"
            print(f"{path} {state}: nothing to change", file=out)
            return 0
        assert after is not None  # only "no file, nothing to remove" leaves nothing, and that is `before`
        if show:
            print(f"would write {path} (nothing written yet):", file=out)
            old, new = (before or "").splitlines(keepends=True), after.splitlines(keepends=True)
            diff = difflib.unified_diff(old, new, str(path), str(path))
            out.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
            return 0
        _write(path, before, after)
    except ConfigUnreadable as exc:
        print(f"tabgate-host connect {agent.name}: {exc}; fix it first{UNCHANGED}", file=err)
        return 1
    except ConnectError as exc:
        print(f"tabgate-host connect {agent.name}: {exc}", file=err)
        return 1
    if remove:
        print(f"removed {SERVER_NAME} from {path}", file=out)
        print(f"next: {agent.restart}", file=out)
    else:
        print(f"wrote {path}: {SERVER_NAME} runs {script} mcp", file=out)
        print(f"next: {agent.restart}, then {SWITCH_ON}", file=out)
    return 0
