"""Who an agent is when an interpreter runs it, and what its sessions may hold (contract §8.2): real Node and
Python agents (the official SDKs) start `tabgate-host mcp`; the test plays the browser and reads the agent the
host tells it. Two scripts of one interpreter are two programs, inline code is inline code, a relative script
path is never taken for the file of the folder the agent moved to, a name cannot pass for a path, and one
program's sessions waiting for the person do not lock another program out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import HostDirs
from hostproc import NO_ANSWER, FakeBrowserSide
from test_host_gateway import TAB_QUERY_TOOL, gateway_host, runtime_dir, wait_until
from test_host_gateway_peers import (
    IMPOSTOR,
    agent_started_by,
    calls_of,
    host_log,
    impostor,
    list_and_call,
    said,
)

from tests.support.agents import text_of
from tests.support.browser import tabgate_host_bin
from tests.support.npm_packages import node_path
from tests.support.script_agents import (
    agent_env,
    finished,
    node_agent_code,
    start_agent,
    write_node_agent,
    write_python_agent,
)

pytestmark = pytest.mark.host

__all__ = ["runtime_dir"]  # the fixture, imported for this module's tests

QUERY = {"name": "browser_tab", "arguments": {"action": "query"}}
WAITING = 64  # the sessions of the attack: each with one call waiting for the person


def run(
    argv: list[str], runtime: Path, cwd: Path, name: str = "agent", chdir: Path | None = None
) -> dict[str, Any]:
    env = agent_env(tabgate_host_bin(), name, QUERY, {"TABGATE_RUNTIME_DIR": str(runtime)}, chdir)
    return finished(start_agent(argv, env, cwd))


def agents_seen(browser: FakeBrowserSide) -> list[dict[str, Any]]:
    return [call["params"]["agent"] for call in calls_of(browser, "gateway/call")]


def script(path: Path) -> dict[str, str]:
    return {"kind": "script", "target": os.path.realpath(path)}


def test_two_node_scripts_are_two_agents_and_node_inline_code_is_neither(
    host_dirs: HostDirs, runtime_dir: Path, tmp_path: Path
) -> None:
    """Gemini CLI and the MCP Inspector are both `/usr/bin/node` to the OS: the script tells them apart."""
    node = node_path()
    gemini, inspector = write_node_agent(tmp_path / "gemini"), write_node_agent(tmp_path / "inspector")
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        for agent in (gemini, inspector):
            assert run([node, "--enable-source-maps", str(agent)], runtime_dir, tmp_path)["isError"] is False
        inline = ["--input-type=module", "-e", node_agent_code()]
        assert run([node, *inline], runtime_dir, tmp_path)["isError"] is False
    executable = os.path.realpath(node)
    assert [(seen["executable"], seen["runs"]) for seen in agents_seen(browser)] == [
        (executable, script(gemini)),
        (executable, script(inspector)),
        (executable, {"kind": "inline", "target": ""}),
    ]


def test_two_python_scripts_are_two_agents(host_dirs: HostDirs, runtime_dir: Path, tmp_path: Path) -> None:
    first, second = write_python_agent(tmp_path / "one"), write_python_agent(tmp_path / "two")
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        for agent in (first, second):
            assert run([sys.executable, "-u", str(agent)], runtime_dir, tmp_path)["isError"] is False
    assert [seen["runs"] for seen in agents_seen(browser)] == [script(first), script(second)]
    assert {seen["executable"] for seen in agents_seen(browser)} == {os.path.realpath(sys.executable)}


def test_a_relative_script_path_is_not_resolved_in_the_folder_the_agent_moved_to(
    host_dirs: HostDirs, runtime_dir: Path, tmp_path: Path
) -> None:
    """`node agent.mjs` started in one folder changes to another that holds a trusted `agent.mjs` before
    `tabgate-host mcp` starts: it is never that trusted script (a relative path is never trusted)."""
    node = node_path()
    started_in, trusted = tmp_path / "hostile", tmp_path / "trusted"
    write_node_agent(started_in)
    trusted_script = write_node_agent(trusted)
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        assert run([node, "agent.mjs"], runtime_dir, started_in, chdir=trusted)["isError"] is False
    (seen,) = agents_seen(browser)
    assert seen["runs"]["kind"] == "relative"
    assert seen["runs"] != script(trusted_script)


def test_a_name_imitating_a_path_reaches_the_browser_cleaned(host_dirs: HostDirs, runtime_dir: Path) -> None:
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        params = agent_started_by(str(tabgate_host_bin()), ["mcp"], runtime_dir)
        anyio.run(list_and_call, params, "codex — /opt/codex/bin/codex\u202e")
    assert [seen["name"] for seen in agents_seen(browser)] == ["codex opt codex bin codex"]


def leave_waiting(method: str, params: dict[str, Any]) -> Any:
    """The browser: every call of the waiting agent waits for the person, who never answers."""
    if method == "gateway/tools":
        return {"tools": [TAB_QUERY_TOOL]}
    if params["agent"]["name"] == "codex":  # the impostor's sessions
        return NO_ANSWER
    return {"content": [{"type": "text", "text": f"{params['agent']['name']} ran"}], "isError": False}


def test_sessions_of_one_program_waiting_for_the_person_do_not_lock_another_program_out(
    host_dirs: HostDirs, runtime_dir: Path
) -> None:
    """64 sessions of one program, each with a call waiting; a newcomer of another program (bash running
    `tabgate-host mcp`) still gets in and is answered."""
    host_bin = str(tabgate_host_bin())
    with gateway_host(host_dirs, runtime_dir) as (_host, browser):
        browser.answer = leave_waiting
        with impostor(runtime_dir, "waiting", WAITING) as peer:
            accepted = int(said(peer).split()[1])
            newcomer = agent_started_by("/bin/bash", ["-c", f'"{host_bin}" mcp; exit $?'], runtime_dir)
            tools, result = anyio.run(list_and_call, newcomer, "newcomer")
            assert peer.stdin is not None
            peer.stdin.close()
    assert accepted >= 1 and len([a for a in agents_seen(browser) if a["name"] == "codex"]) == accepted
    assert tools == ["browser_tab"]
    assert (result.is_error, text_of(result)) == (False, "newcomer ran")


def test_a_peer_started_by_a_relative_path_is_refused_wherever_it_moves(
    host_dirs: HostDirs, runtime_dir: Path, tmp_path: Path
) -> None:
    """Another install's `bin/tabgate-host`, started by that relative path, moves to the folder where
    `bin/tabgate-host` is this install's before it connects: it is still not this install's."""
    real = tabgate_host_bin()
    other = tmp_path / "other" / "bin" / "tabgate-host"
    other.parent.mkdir(parents=True)
    shutil.copy2(real, other)
    env = {
        **os.environ,
        "PYTHONPATH": str(IMPOSTOR),
        "TG_IMPOSTOR": "idle",
        "TG_SOCKET": str(runtime_dir / "gateway.sock"),
        "TG_COUNT": "1",
        "TG_CHDIR": str(real.parent.parent),
    }
    with gateway_host(host_dirs, runtime_dir) as (_host, _browser):
        peer = subprocess.Popen(
            ["bin/tabgate-host", "mcp"],
            cwd=other.parent.parent,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            accepted = said(peer)
        finally:
            peer.kill()
            peer.wait(10)
        wait_until(lambda: "was started by the relative path" in host_log(host_dirs), "the refusal")
    assert accepted == "accepted 0"
