"""The agent gateway at the host: the user-only socket, `tabgate-host mcp` started as an agent starts it,
and calls relayed to the browser and back. The test plays the browser's side of the native-messaging
protocol (answering the host's `gateway/tools` and `gateway/call` requests) as every host-tier test does."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import HostDirs, running_host
from hostproc import NO_ANSWER, FakeBrowserSide, HostProcess
from mcp import Client, StdioServerParameters

from native_host.gateway.catalogue import fixed_tools
from native_host.gateway.interpreters import runs_of
from native_host.gateway.service import SWITCHED_OFF
from native_host.gateway.standing import Where, diagnose
from tests.support.bounds import HOST_CONNECT_S

pytestmark = pytest.mark.host

TAB_QUERY_TOOL = {
    "name": "browser_tab",
    "description": "Tabs of the browser",
    "inputSchema": {"type": "object", "properties": {"action": {"type": "string"}}},
}


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    # Unix socket paths are limited to ~108 bytes: keep the folder short, outside pytest's deep tmp paths.
    base = Path(tempfile.mkdtemp(prefix="tg-"))
    try:
        yield base / "run"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def browser_answers(method: str, params: dict[str, Any]) -> Any:
    if method == "gateway/tools":
        return {"tools": [TAB_QUERY_TOOL]}
    if method == "gateway/call" and params["name"] == "browser_broken":
        return {"content": "not a list of blocks"}
    if method == "gateway/call" and params["name"] == "browser_hangs":  # still running when it matters
        return NO_ANSWER
    if method == "gateway/call":
        text = f"{params['agent']['name']} called {params['name']} with {params['arguments']}"
        return {"content": [{"type": "text", "text": text}], "isError": False}
    raise AssertionError(f"unexpected request {method}")


def agent_params(runtime: Path) -> StdioServerParameters:
    """`tabgate-host mcp` exactly as an agent's config starts it (codex: command + args)."""
    return StdioServerParameters(
        command=str(Path(sys.executable).parent / "tabgate-host"),
        args=["mcp"],
        env={"TABGATE_RUNTIME_DIR": str(runtime)},
    )


@contextlib.contextmanager
def gateway_host(dirs: HostDirs, runtime: Path) -> Iterator[tuple[HostProcess, FakeBrowserSide]]:
    with running_host(dirs, None, env={"TABGATE_RUNTIME_DIR": str(runtime)}) as host:
        host.initialize()
        browser = FakeBrowserSide(host, browser_answers)
        try:
            host.notify("gateway/state", {"enabled": True})
            wait_until(lambda: (runtime / "gateway.sock").exists(), "the gateway socket")
            yield host, browser
        finally:
            browser.stop()


def this_program() -> dict[str, Any]:
    """The agent this test process is, as the host tells the browser: this interpreter and what it runs."""
    executable = os.path.realpath(sys.executable)
    argv = [os.fsdecode(arg) for arg in Path("/proc/self/cmdline").read_bytes().split(b"\0")[:-1]]
    runs = runs_of(executable, argv, os.getcwd())
    return {"executable": executable, "runs": None if runs is None else runs.model_dump()}


def wait_until(predicate: Callable[[], object], what: str, timeout: float = HOST_CONNECT_S) -> None:
    """By default as long as the core waits for the host: the socket comes once the host's event loop runs,
    after it has imported the MCP SDK, which a busy machine made take over 20 s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def run_agent(runtime: Path, body: Callable[[Client, list[Any]], Any]) -> Any:
    notices: list[Any] = []

    async def on_message(message: Any) -> None:
        notices.append(message)

    async def main() -> Any:
        async with Client(
            agent_params(runtime),
            mode="legacy",
            read_timeout_seconds=30,
            message_handler=on_message,
            client_info=types.Implementation(name="test-agent", version="1.0"),
        ) as client:
            return await body(client, notices)

    return anyio.run(main)


def test_the_socket_is_private_and_exists_only_while_the_gateway_is_on(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    with gateway_host(host_dirs, runtime_dir) as (host, _browser):
        sock = runtime_dir / "gateway.sock"
        assert stat.S_IMODE(runtime_dir.stat().st_mode) == 0o700
        assert stat.S_ISSOCK(sock.lstat().st_mode)
        assert stat.S_IMODE(sock.lstat().st_mode) == 0o600
        host.notify("gateway/state", {"enabled": False})
        wait_until(lambda: not sock.exists(), "the socket to go away when the gateway is turned off")


def test_an_agent_lists_and_calls_tools_through_the_host(host_dirs: HostDirs, runtime_dir: Path) -> None:
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):

        async def body(client: Client, _notices: list[Any]) -> tuple[list[str], types.CallToolResult]:
            tools = await client.list_tools()
            result = await client.call_tool("browser_tab", {"action": "query"})
            return [tool.name for tool in tools.tools], result

        names, result = run_agent(runtime_dir, body)
    assert names == ["browser_tab"]
    assert result.is_error is False
    assert result.content[0].text == "test-agent called browser_tab with {'action': 'query'}"
    calls = [m for m in browser.seen if m["method"] == "gateway/call"]
    # The agent is the process that started `tabgate-host mcp`: here the SDK's (pytest's) interpreter.
    assert calls[0]["params"]["agent"] == {"name": "test-agent", "version": "1.0", **this_program()}
    assert calls[0]["params"]["session"].startswith("agent-")


def test_an_answer_that_is_not_a_tool_result_reaches_the_agent_as_an_error_saying_so(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    # The host relays the browser's answer unchecked; `tabgate-host mcp` is the one place that reads it.
    with gateway_host(host_dirs, runtime_dir):

        async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
            await client.list_tools()
            return await client.call_tool("browser_broken", {})

        result = run_agent(runtime_dir, body)
    assert result.is_error is True
    assert "sent an answer that is not an MCP tool result" in result.content[0].text


FIXED = [tool.name for tool in fixed_tools()]


def test_with_the_browser_down_the_fixed_tools_are_listed_and_a_call_says_to_open_chrome(
    runtime_dir: Path,
) -> None:
    """Contract §8.2: no client calls a tool it was not shown, so the fixed tools are there all the time."""

    async def body(client: Client, _notices: list[Any]) -> tuple[str, list[str], types.CallToolResult]:
        tools = await client.list_tools()
        result = await client.call_tool("browser_tab", {"action": "query"})
        return client.instructions or "", [tool.name for tool in tools.tools], result

    instructions, names, result = run_agent(runtime_dir, body)
    assert names == FIXED and "browser_tab" in names
    assert result.is_error is True
    assert "Chrome with Tabgate is not running. Open Chrome with Tabgate" in result.content[0].text
    assert "the browser was NOT reachable" in instructions and "Open Chrome with Tabgate" in instructions


def test_with_the_gateway_off_the_fixed_tools_are_listed_and_a_call_says_to_turn_it_on(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    async def body(client: Client, _notices: list[Any]) -> tuple[str, list[str], types.CallToolResult]:
        tools = await client.list_tools()
        result = await client.call_tool("browser_tab", {"action": "query"})
        return client.instructions or "", [tool.name for tool in tools.tools], result

    with gateway_host(host_dirs, runtime_dir) as (host, browser):
        host.notify("gateway/state", {"enabled": False})
        wait_until(lambda: not (runtime_dir / "gateway.sock").exists(), "the gateway to close")
        instructions, names, result = run_agent(runtime_dir, body)
    assert names == FIXED
    assert result.is_error is True
    assert "Turn on *Let agents use Tabgate* in Tabgate's popup" in result.content[0].text
    assert "open Chrome" not in result.content[0].text.lower()
    assert "NOT reachable" in instructions and "Turn on *Let agents use Tabgate*" in instructions
    assert not [m for m in browser.seen if m["method"] == "gateway/call"]


def test_an_agents_running_call_hears_that_the_person_turned_agents_off(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    """Not that Tabgate went away (the browser closed or restarted), which is all its connection closing says:
    the model would wait for Chrome, or try again, where the person meant it to stop."""
    with gateway_host(host_dirs, runtime_dir) as (host, browser):

        def switch_off_once_called() -> None:
            wait_until(lambda: any(m["method"] == "gateway/call" for m in browser.seen), "the call")
            host.notify("gateway/state", {"enabled": False})

        async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
            await client.list_tools()
            async with anyio.create_task_group() as group:
                group.start_soon(anyio.to_thread.run_sync, switch_off_once_called)
                return await client.call_tool("browser_hangs", {})

        result = run_agent(runtime_dir, body)
    assert result.is_error is True
    assert [block.text for block in result.content if isinstance(block, types.TextContent)] == [SWITCHED_OFF]


def test_a_call_while_the_host_has_just_started_waits_for_the_browsers_word_and_runs(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    """A fresh host is "starting" until the browser says whether agents may come in: an agent that calls then
    waits for that word (bounded) instead of being told to turn on what may be on."""

    async def body(client: Client, _notices: list[Any]) -> tuple[str, types.CallToolResult]:
        def browser_says() -> None:
            time.sleep(2)  # the call is waiting by then
            host.notify("gateway/state", {"enabled": True})

        thread = threading.Thread(target=browser_says, daemon=True)
        thread.start()
        result = await client.call_tool("browser_tab", {"action": "query"})
        await anyio.to_thread.run_sync(thread.join, 30)
        return client.instructions or "", result

    with running_host(host_dirs, None, env={"TABGATE_RUNTIME_DIR": str(runtime_dir)}) as host:
        host.initialize()
        browser = FakeBrowserSide(host, browser_answers)
        try:
            wait_until(lambda: diagnose([runtime_dir]).where is Where.STARTING, "the host's state file")
            instructions, result = run_agent(runtime_dir, body)
        finally:
            browser.stop()
    assert "its native host has just started" in instructions
    assert result.is_error is False, result.content
    assert result.content[0].text == "test-agent called browser_tab with {'action': 'query'}"


def test_an_agent_that_lists_once_before_the_browser_can_call_once_it_comes(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    """codex 0.169 lists once and never again after list_changed: its call must just work."""
    up, done = threading.Event(), threading.Event()
    seen: list[dict[str, Any]] = []  # what the browser was asked

    def browser_session() -> None:
        with gateway_host(host_dirs, runtime_dir) as (_host, browser):
            up.set()
            done.wait(60)
            seen.extend(browser.seen)

    async def body(client: Client, _notices: list[Any]) -> tuple[list[str], types.CallToolResult]:
        names = [tool.name for tool in (await client.list_tools()).tools]
        thread = threading.Thread(target=browser_session, daemon=True)
        thread.start()
        await anyio.to_thread.run_sync(up.wait, 30)
        result = await client.call_tool("browser_tab", {"action": "query"})  # no tools/list in between
        done.set()
        await anyio.to_thread.run_sync(thread.join, 30)
        return names, result

    names, result = run_agent(runtime_dir, body)
    assert "browser_tab" in names
    assert result.is_error is False, result.content
    assert result.content[0].text == "test-agent called browser_tab with {'action': 'query'}"
    assert [m["method"] for m in seen if m["method"].startswith("gateway/")] == ["gateway/call"]


def test_with_the_browser_up_the_instructions_say_so(host_dirs: HostDirs, runtime_dir: Path) -> None:
    async def body(client: Client, _notices: list[Any]) -> str:
        return client.instructions or ""

    with gateway_host(host_dirs, runtime_dir):
        instructions = run_agent(runtime_dir, body)
    assert "the browser was reachable" in instructions and "NOT" not in instructions


def test_the_agent_hears_when_tabgate_appears_and_goes(host_dirs: HostDirs, runtime_dir: Path) -> None:
    """A running agent survives the browser starting and closing: the browser's tools come with list_changed,
    and the fixed tools stay listed while it is away."""
    stop_host = threading.Event()
    host_up = threading.Event()

    def browser_session() -> None:
        with gateway_host(host_dirs, runtime_dir):
            host_up.set()
            stop_host.wait(60)

    async def body(client: Client, notices: list[Any]) -> list[list[str]]:
        listed = [[tool.name for tool in (await client.list_tools()).tools]]
        thread = threading.Thread(target=browser_session, daemon=True)
        thread.start()
        with anyio.fail_after(30):
            while not any(isinstance(n, types.ToolListChangedNotification) for n in notices):
                await anyio.sleep(0.05)
        listed.append([tool.name for tool in (await client.list_tools()).tools])
        notices.clear()
        stop_host.set()
        with anyio.fail_after(30):
            while not any(isinstance(n, types.ToolListChangedNotification) for n in notices):
                await anyio.sleep(0.05)
        listed.append([tool.name for tool in (await client.list_tools()).tools])
        await anyio.to_thread.run_sync(thread.join, 30)
        return listed

    assert run_agent(runtime_dir, body) == [FIXED, ["browser_tab"], FIXED]


def listening_tcp_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A":  # LISTEN
                    inodes.add(fields[9])
    return inodes


def socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                found.add(target[len("socket:[") : -1])
    return found


def test_the_host_opens_no_tcp_port(host_dirs: HostDirs, runtime_dir: Path) -> None:
    with gateway_host(host_dirs, runtime_dir) as (host, _browser):
        run_agent(runtime_dir, lambda client, _n: client.list_tools())
        mine = socket_inodes(host.process.pid)
        assert mine, "the host should at least hold its gateway socket"
        assert mine.isdisjoint(listening_tcp_inodes())


OTHER_USER = "tabgate-other"
SYSTEM_PYTHON = "/usr/bin/python3"  # the venv's interpreter needs a library other users cannot reach here

CONNECT_AND_ASK = """
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(PATH)
except OSError as exc:
    print("refused at connect:", exc)
    raise SystemExit(0)
s.settimeout(10)
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\\n')
    answer = s.recv(1000)
except OSError as exc:
    answer = b""
print("answer:", repr(answer))
"""


def as_other_user(socket_file: Path) -> str:
    if os.getuid() != 0:
        raise AssertionError("this test creates a second user and needs root; run the host tier as root")
    if subprocess.run(["id", OTHER_USER], capture_output=True).returncode != 0:
        subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER], check=True
        )
    done = subprocess.run(
        [
            "setpriv",
            "--reuid",
            OTHER_USER,
            "--regid",
            OTHER_USER,
            "--clear-groups",
            SYSTEM_PYTHON,
            "-c",
            CONNECT_AND_ASK.replace("PATH", repr(str(socket_file))),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@contextlib.contextmanager
def opened_up(*paths: Path, mode: int) -> Iterator[None]:
    """Loosen modes for a moment, to test the layer behind them."""
    before = {path: stat.S_IMODE(path.stat().st_mode) for path in paths}
    try:
        for path in paths:
            os.chmod(path, mode)
        yield
    finally:
        for path, old in before.items():
            os.chmod(path, old)


def test_another_user_is_kept_out_by_the_socket_mode_and_by_the_peer_check(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        sock = runtime_dir / "gateway.sock"
        with opened_up(runtime_dir.parent, runtime_dir, mode=0o755):
            by_mode = as_other_user(sock)
            with opened_up(sock, mode=0o666):
                by_peer_check = as_other_user(sock)
    assert by_mode.startswith("refused at connect:") and "Permission denied" in by_mode
    assert by_peer_check == "answer: b''"  # connected, then closed unanswered
    assert not [m for m in browser.seen if m["method"] == "gateway/tools"]
