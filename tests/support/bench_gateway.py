"""Agent gateway figures (contract §8): a read-only browser call through the gateway beside the same call
from an extension page in the same run, an agent's snapshot of a small page, 8 agents × 100 calls with nothing
lost or duplicated, and the host's memory while a peer sends 3,000 `tools/list` and reads none of the answers
(§8.1: flat)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import Client
from playwright.sync_api import sync_playwright

from native_host.gateway.place import socket_paths
from tests.core.fenced import unwrapped
from tests.support.agents import (
    AgentThread,
    codex_config,
    default_place_free,
    host_pid,
    params_from_codex,
    served,
    text_of,
    wait_listed,
)
from tests.support.browser import Extension, grant_site_access, install_host, launch, tabgate_host_bin
from tests.support.gateway_browser import BUTTON_PAGE, serve_page

if TYPE_CHECKING:
    from tests.support.bench import Figure

CALLS = 200
AGENTS = 8
CALLS_EACH = 100
QUERY = {"action": "query", "active": True}
UNREAD_REQUESTS = 3000
IMPOSTOR = Path(__file__).resolve().parents[1] / "host" / "impostor"  # a peer that passes the identity check


def _gateway_browser(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A profile whose host uses the default socket place, as agents started by real clients find it."""
    profile = tmp / "profile"
    profile.mkdir()
    env = {"TABGATE_LOG_DIR": str(tmp / "logs"), "TABGATE_DATA_DIR": str(tmp / "data")}
    (tmp / "config.toml").write_text("# no MCP servers\n")
    install_host(profile, tmp / "config.toml", env=env)
    default_place_free()
    return profile, env


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def unread_peer(log_dir: str) -> tuple[float, float, int]:
    """Host RSS before and at most over 10 s while a peer's 3,000 answers go unread; answers read after."""
    pid = host_pid(log_dir)
    before = _rss_mib(pid)
    env = {
        **os.environ,
        "PYTHONPATH": str(IMPOSTOR),
        "TG_IMPOSTOR": "flood",
        "TG_SOCKET": str(next(path for path in socket_paths() if served(path))),
        "TG_COUNT": str(UNREAD_REQUESTS),
    }
    peer = subprocess.Popen(
        [str(tabgate_host_bin()), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert peer.stdin is not None and peer.stdout is not None
    try:
        hello = peer.stdout.readline()
        assert hello.startswith("hello {'session'"), f"the host refused the peer: {hello!r}"
        peer.stdout.readline()  # sending
        peak = before
        for _ in range(20):
            time.sleep(0.5)
            peak = max(peak, _rss_mib(pid))
        peer.stdin.write("read\n")
        peer.stdin.flush()
        answered = int(peer.stdout.readline().split()[1])
    finally:
        peer.kill()
        peer.wait()
    return before, peak, answered


def _connected(ext: Extension) -> None:
    ext.wait_python_ready()
    deadline = time.monotonic() + 30
    while ext.send({"type": "status"})["host"] != "connected":
        if time.monotonic() > deadline:
            raise RuntimeError("the host did not connect")
        time.sleep(0.1)
    ext.send({"type": "config/set", "patch": {"gateway": True}})
    while not any(served(path) for path in socket_paths()):  # the host listens once it hears the switch
        if time.monotonic() > deadline + 30:
            raise RuntimeError("the host never listened for agents")
        time.sleep(0.05)


async def _timed_calls(client: Client, _notices: list[Any]) -> list[float]:
    await wait_listed(client, lambda names: "browser_tab" in names)
    samples = []
    for i in range(CALLS + 20):
        t = time.perf_counter()
        result = await client.call_tool("browser_tab", QUERY)
        if result.is_error:
            raise RuntimeError(f"gateway call failed: {result.content}")
        if i >= 20:
            samples.append((time.perf_counter() - t) * 1000)
    return samples


def _snapshots(site: str, reading: threading.Event) -> Any:
    """An agent opens a small page of a granted site in its own tab, then reads it: p50 of `CALLS`.
    `reading` is set once the person need answer nothing more (the timed reads)."""

    async def body(client: Client, _notices: list[Any]) -> list[float]:
        await wait_listed(client, lambda names: "browser_page" in names)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": site})
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        await client.call_tool("browser_dom", {"action": "wait_for", "tabId": tab_id, "text": "Buy"})
        await client.call_tool("browser_page", {"action": "snapshot", "tabId": tab_id})
        reading.set()
        samples = []
        for i in range(CALLS + 20):
            t = time.perf_counter()
            result = await client.call_tool("browser_page", {"action": "snapshot", "tabId": tab_id})
            if result.is_error or "Buy" not in text_of(result):
                raise RuntimeError(f"gateway snapshot failed: {result.content}")
            if i >= 20:
                samples.append((time.perf_counter() - t) * 1000)
        return samples

    return body


def allow_for_the_session(ext: Extension, running: AgentThread, until: threading.Event) -> None:
    """The person allows each question of the agent for its session, until the agent says it is set."""
    while running.is_alive() and not until.is_set():
        for request in ext.send({"type": "approvals"})["pending"]:
            ext.send({"type": "approval/answer", "id": request["id"], "decision": "session"})
        time.sleep(0.05)


async def _many_calls(client: Client, _notices: list[Any]) -> int:
    await wait_listed(client, lambda names: "browser_tab" in names)
    answered = 0
    for _ in range(CALLS_EACH):
        result = await client.call_tool("browser_tab", QUERY)
        answered += 0 if result.is_error else 1
    return answered


def gateway() -> list[Figure]:
    from tests.support.bench import PAGE_LOOP, Figure, median  # bench imports this module

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp, serve_page(BUTTON_PAGE) as site:
        profile, env = _gateway_browser(Path(tmp))
        grant_site_access(pw, profile, [site])  # the small page the agent reads
        params = params_from_codex(codex_config())
        with launch(pw, profile, env=env) as ext:
            _connected(ext)
            rss_before, rss_peak, unread_answered = unread_peer(env["TABGATE_LOG_DIR"])
            ext.page.goto(f"chrome-extension://{ext.id}/manifest.json")
            item = {
                "type": "function_call",
                "name": "browser_tab",
                "arguments": json.dumps(QUERY),
                "call_id": "b",
            }
            page = median(ext.page.evaluate(PAGE_LOOP, [{"type": "dispatch", "item": item}, CALLS]))
            running = AgentThread(params, _timed_calls)
            running.start()
            through_gateway = median(running.outcome(300))
            reading = threading.Event()
            snapshotting = AgentThread(params, _snapshots(site, reading))
            snapshotting.start()
            allow_for_the_session(ext, snapshotting, reading)
            snapshot = median(snapshotting.outcome(300))
            agents = [AgentThread(params, _many_calls, f"agent-{n}") for n in range(AGENTS)]
            t = time.perf_counter()
            for agent in agents:
                agent.start()
            answered = [agent.outcome(600) for agent in agents]
            seconds = time.perf_counter() - t
            seen = {a["name"]: a["calls"] for a in ext.send({"type": "gateway/agents"})["agents"]}
    counted = [seen.get(f"agent-{n}", 0) for n in range(AGENTS)]
    intact = answered == [CALLS_EACH] * AGENTS and counted == [CALLS_EACH] * AGENTS
    return [
        Figure(
            "gateway_browser_tab_query",
            through_gateway,
            "ms",
            note="agent→tabgate-host mcp→socket→host→SW→Python→page, p50 of 200",
        ),
        Figure("page_browser_tab_query_same_run", page, "ms", note="extension page→SW→Python, p50 of 200"),
        Figure(
            "gateway_overhead_p50", round(through_gateway - page, 3), "ms", "≤ 1.5", "gateway p50 − page p50"
        ),
        Figure(
            "gateway_snapshot_small_page_p50",
            snapshot,
            "ms",
            "≤ 15",
            note="an agent's browser_page snapshot of its own tab on a granted site (title, line, button), "
            f"p50 of {CALLS}",
        ),
        Figure(
            "gateway_unread_peer_host_rss_growth",
            round(rss_peak - rss_before, 1),
            "MiB",
            "≤ 16",  # flat: the peer's 8 MiB output cap plus the allocator's slack, never growing with it
            note=f"host RSS {rss_before:.0f} → {rss_peak:.0f} MiB at most over 10 s while a peer sent "
            f"{UNREAD_REQUESTS} tools/list and read nothing; {unread_answered} answered once it read",
        ),
        Figure(
            "gateway_8_agents_x_100_calls",
            round(seconds, 2),
            "s",
            note=f"{sum(answered)}/{AGENTS * CALLS_EACH} answered, {statistics.mode(counted)} counted per "
            "agent; "
            + ("nothing lost or duplicated" if intact else f"LOST OR DUPLICATED: {answered} {counted}"),
        ),
    ]
