"""Where an agent stands without a browser (contract §8.2): the fixed tools `tabgate-host mcp` lists are
the ones the browser lists, and the host's state file tells "open Chrome" from "turn on the gateway" from
"the host stopped"."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.agents.agent_calls import AgentGateway
from core.messages.runtime_messages import ConfigSet
from core.runtime.facade import Service
from native_host.gateway.catalogue import fixed_tools
from native_host.gateway.place import SOCKET_NAME
from native_host.gateway.standing import STATE_NAME, StateFile, Where, diagnose, read_state

pytestmark = pytest.mark.unit

CODEX = {"name": "codex", "version": "0.169", "executable": "/usr/local/bin/codex"}


class NoTabs:
    """A browser for listing only: nothing is called."""

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        raise AssertionError(f"{tool} was called while listing")


async def browser_lists(patch: dict[str, Any]) -> list[dict[str, Any]]:
    """What the real core answers an agent's `tools/list` (gateway/tools) with the config `patch`."""
    events: list[dict[str, Any]] = []
    browser = NoTabs()
    service = Service(emit=events.append, browser=browser)
    gateway = AgentGateway(service, browser, events.append)
    message = ConfigSet(type=ConfigSet.TYPE, patch=patch)
    await service.handle(message)
    await gateway.after(message)
    answer = await gateway.handle({"type": "gateway/tools", "session": "agent-1", "agent": CODEX})
    tools: list[dict[str, Any]] = answer["tools"]
    return tools


@pytest.mark.parametrize("patch", [{"gateway": True}, {"gateway": True, "gatewayMcp": True}])
def test_the_fixed_tools_are_exactly_what_the_browser_lists_without_mcp_tools(patch: dict[str, Any]) -> None:
    listed = asyncio.run(browser_lists(patch))
    fixed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in fixed_tools()]
    assert listed == fixed
    assert {"update_plan", "browser_tab", "browser_page", "browser_dom"} <= {tool["name"] for tool in fixed}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "run"
    made.mkdir(mode=0o700)
    return made


def a_dead_pid() -> int:
    code = "import os; print(os.getpid())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_nothing_there_means_chrome_is_not_running(folder: Path) -> None:
    assert diagnose([folder]).where is Where.NO_BROWSER


def test_a_running_host_with_the_gateway_off_says_turn_it_on(folder: Path) -> None:
    StateFile(folder).write(gateway=False)
    standing = diagnose([folder])
    assert standing.where is Where.GATEWAY_OFF
    assert "Turn on *Let agents use Tabgate*" in standing.advice


def test_a_host_the_browser_has_not_spoken_to_yet_says_it_is_starting(folder: Path) -> None:
    StateFile(folder).write(gateway=None)
    standing = diagnose([folder])
    assert standing.where is Where.STARTING
    assert "has just started" in standing.advice and "Try again in a few seconds" in standing.advice


def test_a_running_host_with_the_gateway_on_is_up_once_its_socket_is_there(folder: Path) -> None:
    StateFile(folder).write(gateway=True)
    assert diagnose([folder]).where is Where.HOST_DOWN  # on, but not listening (yet)
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(folder / SOCKET_NAME))
        assert diagnose([folder]).where is Where.UP
    finally:
        listener.close()


def test_a_host_that_died_without_a_word_says_the_host_is_not_running(folder: Path) -> None:
    (folder / STATE_NAME).write_text(f'{{"pid": {a_dead_pid()}, "gateway": true}}')
    standing = diagnose([folder])
    assert standing.where is Where.HOST_DOWN
    assert "native host is not running" in standing.advice


def test_a_leftover_socket_without_a_host_says_the_host_is_not_running(folder: Path) -> None:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / SOCKET_NAME))
    listener.close()  # the file stays, as a killed host leaves it
    assert diagnose([folder]).where is Where.HOST_DOWN


def test_a_state_file_that_is_not_ours_to_trust_is_ignored(folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(f'{{"pid": {os.getpid()}, "gateway": false}}')
    (folder / STATE_NAME).symlink_to(elsewhere)
    assert read_state(folder) is None
    assert diagnose([folder]).where is Where.NO_BROWSER
    (folder / STATE_NAME).unlink()
    (folder / STATE_NAME).write_text('{"pid": "me"}')
    assert read_state(folder) is None


def test_an_unsafe_folder_is_not_read(folder: Path) -> None:
    StateFile(folder).write(gateway=False)
    os.chmod(folder, 0o755)
    assert diagnose([folder]).where is Where.NO_BROWSER


def test_the_host_refusing_the_agent_says_why() -> None:
    standing = diagnose([], "the peer is not tabgate-host mcp")
    assert standing.where is Where.REFUSED
    assert standing.advice.endswith("the peer is not tabgate-host mcp")


def test_a_host_removes_only_its_own_state_file(folder: Path) -> None:
    StateFile(folder).write(gateway=True)
    StateFile(folder).remove()
    assert not (folder / STATE_NAME).exists()
    (folder / STATE_NAME).write_text(f'{{"pid": {os.getppid()}, "gateway": true}}')  # another host's
    StateFile(folder).remove()
    assert read_state(folder) is not None
