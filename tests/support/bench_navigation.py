"""Held navigation figures (contract §8.2): how soon the person is asked when an agent's page tries to go to a
site the agent has no consent for, and what holding costs a navigation that is allowed.

A real agent (the `mcp` SDK started from codex's config) drives a real Chromium. Site A (granted to the agent
for the session) redirects to site B (not granted). "Time to the question": from the agent sending
`navigate` to A's redirecting page until the board holds the question for B (the load to A held and let go,
A's 302, the hop to B held, decided, asked). "Allowed navigation": `navigate` to a page of A in the agent's
tab (every load held and decided) beside the same navigate by the person in a tab Tabgate does not hold.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp import Client
from playwright.sync_api import sync_playwright

from tests.support.agents import AgentThread, codex_config, params_from_codex, wait_listed
from tests.support.bench_gateway import _connected, _gateway_browser
from tests.support.browser import Extension, grant_site_access, launch
from tests.support.local_site import pages_and_a_redirect, serve

if TYPE_CHECKING:
    from tests.support.bench import Figure

ROUNDS = 15
NAVIGATIONS = 30
POLL_S = 0.002
TIMEOUT_S = 60


@contextmanager
def _sites() -> Iterator[tuple[str, str]]:
    """Site A (a page, and a redirect to B) and site B, on two servers under two host names."""
    with serve(pages_and_a_redirect({}, "")) as b:
        b = b.replace("127.0.0.1", "localhost")
        with serve(pages_and_a_redirect({}, f"{b}/landing")) as a:
            yield a, b


def _answer(ext: Extension, question: dict[str, Any], decision: str) -> None:
    ext.send({"type": "approval/answer", "id": question["id"], "decision": decision})


def _question_for(ext: Extension, site: str) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        for question in ext.send({"type": "approvals"})["pending"]:
            if question.get("site") == site:
                return dict(question)
        time.sleep(POLL_S)
    raise RuntimeError(f"nobody was asked about {site}")


def _timed_questions(ext: Extension, a: str, b: str) -> tuple[list[float], list[float]]:
    """Times to the question for B, and times of allowed navigations within A (ms)."""
    start, asked = threading.Event(), threading.Event()
    started: list[float] = []

    async def body(client: Client, _notices: list[Any]) -> list[float]:
        await wait_listed(client, lambda names: "browser_navigation" in names)
        await client.call_tool("browser_navigation", {"action": "navigate", "url": f"{a}/first"})
        for n in range(ROUNDS):
            await anyio.to_thread.run_sync(start.wait, TIMEOUT_S)
            start.clear()
            started.append(time.perf_counter())
            await client.call_tool("browser_navigation", {"action": "navigate", "url": f"{a}/redirect?{n}"})
            await anyio.to_thread.run_sync(asked.wait, TIMEOUT_S)
            asked.clear()
        allowed = []
        for n in range(NAVIGATIONS + 5):
            t = time.perf_counter()
            await client.call_tool("browser_navigation", {"action": "navigate", "url": f"{a}/page?{n}"})
            allowed.append((time.perf_counter() - t) * 1000)
        return allowed[5:]

    running = AgentThread(params_from_codex(codex_config()), body)
    running.start()
    _answer(ext, _question_for(ext, a), "session")  # A, for the session
    times = []
    for _ in range(ROUNDS):
        start.set()
        question = _question_for(ext, b)
        times.append((time.perf_counter() - started[-1]) * 1000)
        _answer(ext, question, "deny")
        asked.set()
    return times, running.outcome(300)


def _persons_navigations(ext: Extension, a: str) -> list[float]:
    """The same navigate by the person (the popup's call) in a tab of their own: nothing is held."""
    tab = ext.context.new_page()
    tab.goto(f"{a}/mine")
    item = {"type": "function_call", "name": "browser_tab", "arguments": '{"action":"query"}', "call_id": "q"}
    tabs = json.loads(ext.dispatch(item)["output"]["output"].split("\n")[1])
    tab_id = next(t["id"] for t in tabs if t["url"].startswith(f"{a}/mine"))
    samples = []
    for n in range(NAVIGATIONS + 5):
        arguments = {"action": "navigate", "url": f"{a}/page?p{n}", "tabId": tab_id}
        call = {"type": "function_call", "name": "browser_navigation", "arguments": json.dumps(arguments),
                "call_id": f"n{n}"}  # fmt: skip
        t = time.perf_counter()
        ext.dispatch(call)
        samples.append((time.perf_counter() - t) * 1000)
    tab.close()
    return samples[5:]


def held_navigation() -> list[Figure]:
    from tests.support.bench import Figure, median  # bench imports this module

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp, _sites() as (a, b):
        profile, env = _gateway_browser(Path(tmp))
        grant_site_access(pw, profile, [a, b])
        with launch(pw, profile, env=env) as ext:
            _connected(ext)
            to_question, agent_allowed = _timed_questions(ext, a, b)
            person = _persons_navigations(ext, a)
    held, unheld = median(agent_allowed), median(person)
    return [
        Figure(
            "held_navigation_time_to_question",
            median(to_question),
            "ms",
            "≤ 250",
            note=f"agent navigate to A → 302 → B held → question for B on the board, p50 of {ROUNDS}",
        ),
        Figure(
            "allowed_navigation_agent_tab_held",
            held,
            "ms",
            note=f"navigate within A in the agent's tab (every load held and decided), p50 of {NAVIGATIONS}",
        ),
        Figure(
            "allowed_navigation_persons_tab_unheld",
            unheld,
            "ms",
            note=f"the same navigate by the person in an unheld tab, p50 of {NAVIGATIONS}; the difference "
            f"{held - unheld:.1f} ms includes the gateway's own overhead (gateway_overhead_p50)",
        ),
    ]
