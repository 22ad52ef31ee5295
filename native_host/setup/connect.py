"""`tabgate-host connect AGENT`: add Tabgate (`tabgate-host mcp` of this install) to an agent's MCP config, or
take it out (`--remove`), or show the change (`--print`).

The file stays the user's: JSON is edited in place (only the `tabgate` entry's text changes; every other key,
its order and layout are kept), TOML through tomlkit (comments kept), the result is read back and compared
before it replaces the file atomically, mode kept (new files 0600), written through a symlink to its target.
The entry is Tabgate's: the command (and its arguments) are set, an environment is dropped (the socket is
found without one), any other key the user added (timeouts, `disabled`) is kept. Gemini CLI and opencode read
JSON with comments: such a file is read (doctor checks it) but not edited; the person is shown the entry."""

from __future__ import annotations

import difflib
import json
import os
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
from .json_edit import with_entry, without_comments, without_entry
from .locations import Platform

type AgentName = Literal["codex", "claude-desktop", "claude-code", "cursor", "gemini", "opencode"]
type Format = Literal["toml", "json", "jsonc"]  # jsonc: the agent also reads comments and trailing commas

SERVER_NAME: Final = "tabgate"
MCP_ARGS: Final = ("mcp",)
UNCHANGED: Final = "; nothing was changed"
SWITCH_ON: Final = "turn on *Let agents on this computer use Tabgate* in the Tabgate popup"


class ConnectError(Exception):
    """Nothing was written: the agent's config cannot be read or changed safely; the message says why."""


class ConfigUnreadable(ConnectError):
    """The agent's config cannot be read or does not parse (the message names the file and the problem)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """How an agent's server entry starts its server, read from the entry whatever the agent's shape."""

    command: object
    args: object
    env: object


@dataclass(frozen=True, slots=True)
class Agent:
    name: AgentName
    title: str
    where: Callable[[Platform, Path, Mapping[str, str]], Path]  # (platform, home, environment) → the file
    format: Format
    servers_key: str  # codex `mcp_servers`, opencode `mcp`, the others `mcpServers`
    entry: Mapping[str, object]  # what the agent's own tools write beside the command
    restart: str  # what makes the agent read its config again
    argv: bool = False  # opencode: `command` is the whole argv list, no `args`
    env_key: str = "env"  # set by hand to help `mcp` find the socket: now unneeded, and it misleads

    def launch(self, entry: object) -> Launch:
        if not isinstance(entry, dict):
            return Launch(None, None, None)
        command, env = entry.get("command"), entry.get(self.env_key)
        if not self.argv:
            return Launch(command, entry.get("args"), env)
        if isinstance(command, list) and command:
            return Launch(command[0], command[1:], env)
        return Launch(command, None, env)

    def entry_for(self, script: Path, current: object) -> dict[str, object]:
        """The `tabgate` entry to write: the user's other keys kept in their order, ours set."""
        kept = {k: v for k, v in current.items() if k != self.env_key} if isinstance(current, dict) else {}
        if self.argv:
            return {**kept, **self.entry, "command": [str(script), *MCP_ARGS]}
        return {**kept, **self.entry, "command": str(script), "args": list(MCP_ARGS)}


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


def _gemini(_platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    folder = env.get("GEMINI_CLI_HOME", "").strip()  # Gemini CLI's own override of the home folder
    return (Path(folder).expanduser() if folder else home) / ".gemini/settings.json"


def _opencode(_platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CONFIG_HOME", "")  # opencode's global config folder, on macOS too (xdg-basedir)
    return (Path(xdg) if xdg.startswith("/") else home / ".config") / "opencode/opencode.json"


AGENTS: Final[Mapping[AgentName, Agent]] = {
    # codex starts MCP servers beside its first model request, which then goes out without Tabgate's tools
    # (a one-prompt `codex exec` never sees them); `required` makes it wait for them. Safe: `tabgate-host mcp`
    # starts and lists its tools with Chrome closed too, so only a broken install stops codex, saying why.
    "codex": Agent("codex", "codex", _codex, "toml", "mcp_servers", {"required": True}, "restart codex"),
    "claude-desktop": Agent(
        "claude-desktop",
        "Claude Desktop",
        _claude_desktop,
        "json",
        "mcpServers",
        {},
        "quit Claude Desktop and open it again",
    ),
    "claude-code": Agent(
        "claude-code",
        "Claude Code",
        _claude_code,
        "json",
        "mcpServers",
        {"type": "stdio"},
        "start a new Claude Code session",
    ),
    "cursor": Agent("cursor", "Cursor", _cursor, "json", "mcpServers", {}, "restart Cursor"),
    "gemini": Agent(
        "gemini",
        "Gemini CLI",
        _gemini,
        "jsonc",
        "mcpServers",
        {},
        "start a new Gemini CLI session in a folder you trust (it starts no MCP server in others)",
    ),
    "opencode": Agent(
        "opencode",
        "opencode",
        _opencode,
        "jsonc",
        "mcp",
        {"type": "local"},
        "restart opencode",
        argv=True,
        env_key="environment",
    ),
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
    form = file.agent.format
    try:
        data: object = tomllib.loads(text) if form == "toml" else json.loads(plain_json(file, text))
    except ValueError as exc:
        kind = {"toml": "TOML", "json": "JSON", "jsonc": "JSON (comments allowed)"}[form]
        raise ConfigUnreadable(f"{file.path} is not valid {kind} ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigUnreadable(f"{file.path} does not hold a JSON object")
    return data


def plain_json(file: AgentFile, text: str) -> str:
    return without_comments(text) if file.agent.format == "jsonc" else text


def names_tabgate(agent: Agent, name: str, entry: object) -> bool:
    """Tabgate's entry, or any server whose command is a tabgate-host."""
    command = agent.launch(entry).command
    return name == SERVER_NAME or (
        isinstance(command, str) and Path(command).name in ("tabgate-host", "tabgate-host.exe")
    )


def servers_of(file: AgentFile, data: Mapping[str, Any]) -> dict[str, Any]:
    servers = data.get(file.agent.servers_key, {})
    if not isinstance(servers, dict):
        raise ConfigUnreadable(f"{file.path}: `{file.agent.servers_key}` is not a table of servers")
    return servers


# -- the command --------------------------------------------------------------------------------------------


def changed_text(file: AgentFile, text: str | None, script: Path, remove: bool) -> str | None:
    """The file's new text (None: no file and nothing to write); raises ConnectError, changing nothing."""
    data = parse(file, text or "")
    servers = servers_of(file, data)
    key = file.agent.servers_key
    if remove:
        if text is None or SERVER_NAME not in servers:
            return text
        expected = {**data, key: {k: v for k, v in servers.items() if k != SERVER_NAME}}
        by_hand = f"take `{SERVER_NAME}` out of `{key}` by hand"
    else:
        entry = file.agent.entry_for(script, servers.get(SERVER_NAME))
        expected = {**data, key: {**servers, SERVER_NAME: entry}}
        by_hand = f"add this to it by hand:\n{json.dumps({key: {SERVER_NAME: entry}}, indent=2)}"
        if data == expected:
            return text
    if text is not None and plain_json(file, text) != text:
        raise ConnectError(f"{file.path} has comments, which Tabgate does not edit{UNCHANGED}; {by_hand}")
    try:
        result = _edited(file, text or "", servers, script, remove)
    except ConfigWriteError as exc:
        raise ConnectError(f"{exc}{UNCHANGED}") from None
    after = parse(file, result)
    # Never write what would not read back as intended (an emptied TOML `[mcp_servers]` may go with its last).
    if {**after, key: after.get(key, {})} != expected:
        raise ConnectError(
            f"cannot change {file.path} safely (its `{file.agent.servers_key}` is written in a way Tabgate "
            f"cannot edit); add the `{SERVER_NAME}` server by hand, or run with --print to see it"
        )
    return result


def _edited(file: AgentFile, text: str, servers: Mapping[str, Any], script: Path, remove: bool) -> str:
    key = file.agent.servers_key
    entry = file.agent.entry_for(script, servers.get(SERVER_NAME))
    if file.agent.format == "toml":
        if remove:
            return with_server_removed(file.path, text, SERVER_NAME)
        if SERVER_NAME in servers:
            return with_server_updated(file.path, text, SERVER_NAME, entry, (file.agent.env_key,))
        return with_servers_added(file.path, text, {SERVER_NAME: entry})
    if not text.strip():
        text = "{}\n"
    if remove:
        return without_entry(text, key, SERVER_NAME)
    return with_entry(text, key, SERVER_NAME, entry)


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
