"""Agent gateway figures (contract §8): a read-only browser call through the gateway beside the same call
from an extension page in the same run, and 8 agents × 100 calls with nothing lost or duplicated."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import Client
from playwright.sync_api import sync_playwright

from tests.support.agents import AgentThread, codex_config, params_from_codex, wait_listed
from tests.support.browser import Extension, install_host, launch

if TYPE_CHECKING:
    from tests.support.bench import Figure

CALLS = 200
AGENTS = 8
CALLS_EACH = 100
QUERY = {"action": "query", "active": True}


def _gateway_browser(tmp: Path) -> tuple[Path, dict[str, str]]:
    profile = tmp / "profile"
    profile.mkdir()
    run = Path(tempfile.mkdtemp(prefix="tg-bench-")) / "run"  # short: socket paths are limited
    env = {
        "TABGATE_LOG_DIR": str(tmp / "logs"),
        "TABGATE_DATA_DIR": str(tmp / "data"),
        "TABGATE_RUNTIME_DIR": str(run),
    }
    (tmp / "config.toml").write_text("# no MCP servers\n")
    install_host(profile, tmp / "config.toml", env=env)
    return profile, env


def _connected(ext: Extension) -> None:
    ext.wait_python_ready()
    deadline = time.monotonic() + 30
    while ext.send({"type": "status"})["host"] != "connected":
        if time.monotonic() > deadline:
            raise RuntimeError("the host did not connect")
        time.sleep(0.1)
    ext.send({"type": "config/set", "patch": {"gateway": True}})


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


async def _many_calls(client: Client, _notices: list[Any]) -> int:
    await wait_listed(client, lambda names: "browser_tab" in names)
    answered = 0
    for _ in range(CALLS_EACH):
        result = await client.call_tool("browser_tab", QUERY)
        answered += 0 if result.is_error else 1
    return answered


def gateway() -> list[Figure]:
    from tests.support.bench import PAGE_LOOP, Figure, median  # bench imports this module

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        profile, env = _gateway_browser(Path(tmp))
        params = params_from_codex(codex_config(env))
        with launch(pw, profile, env=env) as ext:
            _connected(ext)
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
            "gateway_overhead_p50", round(through_gateway - page, 3), "ms", "≤ 2", "gateway p50 − page p50"
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
