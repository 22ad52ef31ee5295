"""Who may use the gateway socket, and what a peer can cost (contract §8.1): identity from the OS, the
handshake deadline, the output cap with backpressure, and no lock-out by idle peers. The test plays the
browser; hostile peers that pass the identity check are `tabgate-host mcp` processes whose
`sitecustomize` (tests/host/impostor) takes over before the real script runs."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import HostDirs, running_host
from hostproc import FakeBrowserSide
from mcp import Client, StdioServerParameters
from test_host_gateway import TAB_QUERY_TOOL, gateway_host, runtime_dir, this_program, wait_until

from native_host.gateway.bounds import MAX_AGENT_SESSIONS, MAX_RUNNING
from native_host.gateway.catalogue import fixed_tools
from native_host.gateway.service import HANDSHAKE_SECONDS
from native_host.gateway.session import OUTPUT_CAP
from tests.support.agents import codex_env, default_place_free
from tests.support.browser import tabgate_host_bin

pytestmark = pytest.mark.host

__all__ = ["runtime_dir"]  # the fixture, imported for this module's tests

IMPOSTOR = Path(__file__).parent / "impostor"
BIG_ANSWER_TOOLS = 64  # ~1 KiB each: a 64 KiB tools/list answer, like a real browser's tool set


def host_log(dirs: HostDirs) -> str:
    log = dirs.logs / "host.log"
    return log.read_text(errors="replace") if log.exists() else ""


def calls_of(browser: FakeBrowserSide, method: str) -> list[dict[str, Any]]:
    return [message for message in list(browser.seen) if message["method"] == method]


async def list_and_call(params: StdioServerParameters, name: str) -> tuple[list[str], types.CallToolResult]:
    async with Client(
        params,
        mode="legacy",
        read_timeout_seconds=30,
        client_info=types.Implementation(name=name, version="1"),
    ) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        return tools, await client.call_tool("browser_tab", {"action": "query"})


def agent_started_by(command: str, args: list[str], runtime: Path | None) -> StdioServerParameters:
    env = None if runtime is None else {"TABGATE_RUNTIME_DIR": str(runtime)}
    return StdioServerParameters(command=command, args=args, env=env)


@contextlib.contextmanager
def impostor(runtime: Path, mode: str, count: int = 0) -> Iterator[subprocess.Popen[str]]:
    """`tabgate-host mcp` as the OS sees it, playing `mode` (see tests/host/impostor/sitecustomize.py)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(IMPOSTOR),
        "TG_IMPOSTOR": mode,
        "TG_SOCKET": str(runtime / "gateway.sock"),
        "TG_COUNT": str(count),
    }
    process = subprocess.Popen(
        [str(tabgate_host_bin()), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait(10)


def said(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    return process.stdout.readline().strip()


def test_a_raw_socket_peer_is_closed_unanswered(host_dirs: HostDirs, runtime_dir: Path) -> None:
    """A script speaking the protocol perfectly is still not `tabgate-host mcp`: closed, nothing relayed."""
    code = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)\n"
        "try:\n"
        "    s.sendall(sys.argv[2].encode())\n"
        "    print(repr(s.recv(1000)))\n"
        "except (BrokenPipeError, ConnectionResetError):\n"  # closed before or after our requests
        "    print(repr(b''))\n"
    )
    requests = (
        '{"jsonrpc":"2.0","id":0,"method":"gateway/hello","params":{"client":{"name":"codex","version":"1"}}}\n'
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\n'
    )
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        done = subprocess.run(
            [sys.executable, "-c", code, str(runtime_dir / "gateway.sock"), requests],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.stdout.strip() == "b''", done.stderr
        assert calls_of(browser, "gateway/tools") == []
        wait_until(lambda: "is not `tabgate-host mcp` of this install" in host_log(host_dirs), "the refusal")


def test_the_agent_is_the_program_that_started_tabgate_host_mcp(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    """Two agents both calling themselves codex: one is the SDK's Python, the other bash (which runs
    `tabgate-host mcp` as its child, from inline code); the browser is told two different programs."""
    host_bin = str(tabgate_host_bin())
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        direct = anyio.run(list_and_call, agent_started_by(host_bin, ["mcp"], runtime_dir), "codex")
        via_shell = anyio.run(
            list_and_call,
            agent_started_by("/bin/bash", ["-c", f'"{host_bin}" mcp; exit $?'], runtime_dir),
            "codex",
        )
    assert direct[0] == via_shell[0] == ["browser_tab"]
    agents = [call["params"]["agent"] for call in calls_of(browser, "gateway/call")]
    assert agents == [
        {"name": "codex", "version": "1", **this_program()},
        {
            "name": "codex",
            "version": "1",
            "executable": os.path.realpath("/bin/bash"),
            "runs": {"kind": "inline", "target": ""},
        },
    ]


@pytest.mark.parametrize("client_env", ["sdk-default", "codex"])
def test_agents_find_a_desktop_host_at_the_default_place_with_a_clients_environment(
    host_dirs: HostDirs, tmp_path: Path, client_env: str
) -> None:
    """The host has the desktop's XDG_RUNTIME_DIR; the agent gets only what its client passes (the SDK's
    env=None, or codex's extra LANG, LC_ALL, TMPDIR, TZ); no TABGATE_RUNTIME_DIR on either side."""
    default_place_free()
    desktop_runtime = tmp_path / "xdg"
    desktop_runtime.mkdir(mode=0o700)
    host_env = {"XDG_RUNTIME_DIR": str(desktop_runtime), "TMPDIR": str(tmp_path)}
    with running_host(host_dirs, None, env=host_env) as host:
        host.initialize()
        browser = FakeBrowserSide(host, small_browser)
        try:
            host.notify("gateway/state", {"enabled": True})
            wait_until(lambda: "agent gateway listening on" in host_log(host_dirs), "the gateway to listen")
            env = None if client_env == "sdk-default" else codex_env()
            tools, result = anyio.run(
                list_and_call,
                StdioServerParameters(command=str(tabgate_host_bin()), args=["mcp"], env=env),
                "sdk",
            )
        finally:
            browser.stop()
    assert tools == ["browser_tab"]
    assert result.is_error is False
    (call,) = calls_of(browser, "gateway/call")
    # the SDK's process (this one) started `tabgate-host mcp`
    assert call["params"]["agent"] == {"name": "sdk", "version": "1", **this_program()}
    assert not list(desktop_runtime.iterdir()), "the desktop's XDG_RUNTIME_DIR is not where the socket goes"


def small_browser(method: str, params: dict[str, Any]) -> Any:
    if method == "gateway/tools":
        return {"tools": [TAB_QUERY_TOOL]}
    return {"content": [{"type": "text", "text": f"{params['agent']['name']} ran"}], "isError": False}


def test_a_peer_that_never_says_hello_is_closed_after_the_handshake_deadline(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    with gateway_host(host_dirs, runtime_dir), impostor(runtime_dir, "silent") as peer:
        assert said(peer) == "connected"
        words = said(peer).split()
    assert words[:2] == ["closed", "after"] and words[3] == "unanswered", words
    assert HANDSHAKE_SECONDS - 0.5 <= float(words[2]) <= HANDSHAKE_SECONDS + 3


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def big_browser(method: str, params: dict[str, Any]) -> Any:
    tool = {**TAB_QUERY_TOOL, "description": "x" * 1000}
    return {"tools": [{**tool, "name": f"tool_{i}"} for i in range(BIG_ANSWER_TOOLS)]}


def test_a_peer_that_does_not_read_is_not_read_either(host_dirs: HostDirs, runtime_dir: Path) -> None:
    """3,000 `tools/list` requests, answers never read: the host stops taking requests once 8 MiB wait for
    the peer (the browser is asked only that many times), its memory stays put; when the peer reads again,
    every request is answered."""
    requests = 3000
    with running_host(host_dirs, None, env={"TABGATE_RUNTIME_DIR": str(runtime_dir)}) as host:
        host.initialize()
        browser = FakeBrowserSide(host, big_browser)
        try:
            host.notify("gateway/state", {"enabled": True})
            wait_until(lambda: (runtime_dir / "gateway.sock").exists(), "the gateway socket")
            before = rss_kib(host.process.pid)
            with impostor(runtime_dir, "flood", requests) as peer:
                assert said(peer).startswith("hello {'session': 'agent-")
                assert said(peer) == "sending"
                asked = settled_count(browser)
                grown_mib = (rss_kib(host.process.pid) - before) / 1024
                assert peer.stdin is not None
                peer.stdin.write("read\n")
                peer.stdin.flush()
                answered = said(peer)
        finally:
            browser.stop()
    answer_size = len(host_line(big_browser("gateway/tools", {})))
    bound = (OUTPUT_CAP + 4 * 1024 * 1024) // answer_size + MAX_RUNNING  # kernel buffers hold some too
    assert asked <= bound, (
        f"the browser was asked {asked} times for a peer that reads nothing (bound {bound})"
    )
    assert grown_mib < 64, f"the host grew by {grown_mib:.0f} MiB"
    assert answered == f"answers {requests}"


def host_line(result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}, separators=(",", ":")).encode()


def settled_count(browser: FakeBrowserSide, quiet: float = 2.0) -> int:
    """How many tools/list the browser got once no more come for `quiet` seconds."""
    last, since = -1, time.monotonic()
    while True:
        count = len(calls_of(browser, "gateway/tools"))
        if count != last:
            last, since = count, time.monotonic()
        elif time.monotonic() - since > quiet:
            return count
        time.sleep(0.1)


def test_idle_peers_do_not_lock_a_real_agent_out(host_dirs: HostDirs, runtime_dir: Path) -> None:
    """70 connections of one program that handshake and then sit idle: each one over that program's limit,
    and then the real agent (the same program: this test's interpreter), takes the place of its longest-idle
    session."""
    idle = 70
    with (
        gateway_host(host_dirs, runtime_dir) as (_host, browser),
        impostor(runtime_dir, "idle", idle) as peer,
    ):
        assert said(peer) == f"accepted {idle}"
        tools, result = anyio.run(
            list_and_call, agent_started_by(str(tabgate_host_bin()), ["mcp"], runtime_dir), "real"
        )
        assert peer.stdin is not None
        peer.stdin.write("check\n")
        peer.stdin.flush()
        closed = said(peer)
    assert tools == ["browser_tab"] and result.is_error is False
    assert closed == f"closed {idle - MAX_AGENT_SESSIONS + 1}"
    assert [call["params"]["agent"]["name"] for call in calls_of(browser, "gateway/call")] == ["real"]


def test_a_tabgate_host_mcp_of_another_install_is_refused(
    host_dirs: HostDirs, runtime_dir: Path, tmp_path: Path
) -> None:
    """The same program copied elsewhere (the same interpreter, another script path) is not this install's."""
    copy = tmp_path / "other-install" / "tabgate-host"
    copy.parent.mkdir()
    shutil.copy2(tabgate_host_bin(), copy)
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        tools, result = anyio.run(list_and_call, agent_started_by(str(copy), ["mcp"], runtime_dir), "codex")
        wait_until(lambda: f"{copy} mcp" in host_log(host_dirs), "the refusal in the host's log")
        assert "is not `tabgate-host mcp` of this install" in host_log(host_dirs)
    assert tools == [tool.name for tool in fixed_tools()]  # listed all the same (contract §8.2)
    assert result.is_error is True and "did not take this agent" in result.content[0].text
    assert calls_of(browser, "gateway/tools") == calls_of(browser, "gateway/call") == []
