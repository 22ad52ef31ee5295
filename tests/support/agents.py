"""MCP agents for tests and benchmarks, started exactly as codex, Claude and Cursor start `tabgate-host mcp`
from their configs (README), each on a thread of its own: Playwright's sync API runs an event loop in the
caller's thread, and a test plays the person in the popup while an agent waits."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import threading
import time
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from native_host.gateway.place import ENV_RUNTIME_DIR, socket_paths
from tests.support import default_place
from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import tabgate_host_bin

# What codex on Linux passes to a stdio server beside the SDKs' HOME, LOGNAME, PATH, SHELL, TERM, USER.
CODEX_EXTRA_ENV = ("LANG", "LC_ALL", "TMPDIR", "TZ")


def codex_env() -> dict[str, str]:
    """The environment codex gives `tabgate-host mcp` (the SDK adds its defaults to this)."""
    defaults = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/var/tmp/codex-tmp", "TZ": "UTC"}
    return {name: os.environ.get(name, defaults[name]) for name in CODEX_EXTRA_ENV}


def default_place_free(timeout: float = 90) -> None:
    """Claim the default place for this process and wait until no host serves agents there. The place is
    machine-wide: test runs side by side on one machine take turns through a lock file (`default_place`:
    held until the test or module ends), and a host of this run may still be closing; a socket file nobody
    answers on is left for the next host to remove."""
    assert ENV_RUNTIME_DIR not in os.environ, "the default place is under test: unset TABGATE_RUNTIME_DIR"
    default_place.claim()
    deadline = time.monotonic() + timeout
    while any(served(path) for path in socket_paths()):
        if time.monotonic() > deadline:
            raise AssertionError(f"another Tabgate host keeps serving agents at {socket_paths()}")
        time.sleep(0.25)


def host_pid(log_dir: str | os.PathLike[str]) -> int:
    """The pid of the last host started logging to `log_dir` (hosts of other runs log elsewhere)."""
    started = re.findall(r"host started \(pid (\d+)\)", (Path(log_dir) / "host.log").read_text())
    return int(started[-1])


def served(path: os.PathLike[str]) -> bool:
    """Whether a host answers on `path`."""
    with contextlib.closing(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as probe:
        try:
            probe.connect(os.fspath(path))
        except OSError:
            return False
        return True


def codex_config() -> str:
    """What `tabgate-host connect codex` writes in ~/.codex/config.toml: no environment of ours."""
    return f'[mcp_servers.tabgate]\ncommand = {json.dumps(str(tabgate_host_bin()))}\nargs = ["mcp"]\n'


def json_config() -> str:
    """What Claude Desktop, Claude Code and Cursor get (`mcpServers`): no environment of ours."""
    server = {"command": str(tabgate_host_bin()), "args": ["mcp"]}
    return json.dumps({"mcpServers": {"tabgate": server}}, indent=2)


def params_from_codex(text: str) -> StdioServerParameters:
    """As codex starts it: the SDK's default variables plus codex's LANG, LC_ALL, TMPDIR, TZ (and the entry's
    own `env`, if any)."""
    entry = tomllib.loads(text)["mcp_servers"]["tabgate"]
    return StdioServerParameters(
        command=entry["command"], args=entry["args"], env=codex_env() | entry.get("env", {})
    )


def params_from_json(text: str) -> StdioServerParameters:
    """As the SDKs start it from a config without `env` (env=None: HOME, LOGNAME, PATH, SHELL, TERM, USER)."""
    entry = json.loads(text)["mcpServers"]["tabgate"]
    return StdioServerParameters(command=entry["command"], args=entry["args"], env=entry.get("env"))


type AgentBody = Callable[[Client, list[Any]], Awaitable[Any]]


async def agent(params: StdioServerParameters, name: str, body: AgentBody) -> Any:
    notices: list[Any] = []

    async def on_message(message: Any) -> None:
        notices.append(message)

    async with Client(
        params,
        mode="legacy",
        read_timeout_seconds=120,
        message_handler=on_message,
        client_info=types.Implementation(name=name, version="1.0"),
    ) as client:
        return await body(client, notices)


class AgentThread(threading.Thread):
    """An agent on a thread of its own: Playwright's sync API runs an event loop in the test's thread, and the
    test plays the person in the popup while the agent waits."""

    def __init__(self, params: StdioServerParameters, body: AgentBody, name: str = "codex") -> None:
        super().__init__(daemon=True)
        if ENV_RUNTIME_DIR not in (params.env or {}):
            default_place.claim()  # it looks for Tabgate at the default place: this test's turn there
        self.params, self.body, self.agent_name = params, body, name
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = anyio.run(agent, self.params, self.agent_name, self.body)
        except BaseException as exc:
            self.error = exc

    def outcome(self, timeout: float = 120) -> Any:
        self.join(timeout)
        assert not self.is_alive(), "the agent did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def run_agent(params: StdioServerParameters, body: AgentBody, name: str = "codex") -> Any:
    running = AgentThread(params, body, name)
    running.start()
    return running.outcome()


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def wait_listed(
    client: Client, predicate: Callable[[list[str]], bool], timeout: float = SERVERS_UP_S
) -> list[str]:
    """List the agent's tools until `predicate(names)` holds (by default as long as the host may take to come
    back with its servers ready: the browser's tools and the servers' come through it)."""
    with anyio.fail_after(timeout):
        while True:
            names = [tool.name for tool in (await client.list_tools()).tools]
            if predicate(names):
                return names
            await anyio.sleep(0.2)
