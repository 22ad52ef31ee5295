"""Tabgate beside playwright-mcp and chrome-devtools-mcp in one run, on the same local pages
(tests/e2e/pages), each driven through MCP by the same scripted agent: the `mcp` SDK's client started as a
client starts a stdio server. Tabgate goes its real agent path (client → `tabgate-host mcp` → host →
extension, in Debian's Chromium); the peers, pinned npm packages, launch that same Chromium headless (never a
browser of their own).

Measured: a snapshot of the 1,000-row table, the first snapshot answer on a 100,000-element page, `find` on
the table, what it takes to reach row 877 (characters and calls), and click and type p50.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp import Client, StdioServerParameters
from playwright.sync_api import sync_playwright

from tests.core.fenced import unwrapped
from tests.support.agents import AgentThread, codex_config, params_from_codex, text_of, wait_listed
from tests.support.bench_gateway import allow_for_the_session
from tests.support.browser import chromium_path
from tests.support.gateway_browser import browser, desktop_env, gateway, gateway_profile
from tests.support.local_site import FixturePages, serve
from tests.support.npm_packages import (
    CHROME_DEVTOOLS_MCP,
    PLAYWRIGHT_MCP,
    NpmPin,
    PinError,
    install_pin,
)

if TYPE_CHECKING:
    from tests.support.bench import Figure

TABLE = "rows.html?n=1000"  # 1,000 rows, each with a Refund button
BIG = "links.html?n=100000"  # 100,000 links
CLICK_PAGE, TYPE_PAGE = "table.html", "controlled.html"
SNAPSHOTS, FINDS, ACTS = 5, 5, 20
ROW = "0877"


@dataclass
class Driver:
    """One tool's way to do each step of the script; every call is timed under the step it served."""

    name: str
    version: str
    client: Client
    ref_pattern: str  # how an answer names an element's handle
    calls: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)

    async def call(self, step: str, tool: str, args: dict[str, Any]) -> str:
        t = time.perf_counter()
        try:
            result = await self.client.call_tool(tool, args)
        except Exception as error:  # the client's own time limit (120 s) included
            raise RuntimeError(f"{self.name} {tool}: {type(error).__name__}: {error}") from None
        text = text_of(result)
        self.calls.append((step, time.perf_counter() - t))
        if result.is_error:
            raise RuntimeError(f"{self.name} {tool}: {text[:300]}")
        return text

    def ref(self, answer: str, line_has: str) -> str:
        line = next((ln for ln in answer.splitlines() if line_has in ln), None)
        found = re.search(self.ref_pattern, line or "")
        if found is None:
            raise RuntimeError(f"{self.name}: no line with {line_has!r} and a handle in {answer[:800]!r}")
        return found[1]

    def seconds(self, step: str) -> list[float]:
        return [s for name, s in self.calls if name == step]

    async def start(self) -> None:
        """Anything to do before the first page (most tools: nothing)."""

    async def open(self, url: str) -> None:
        raise NotImplementedError

    async def snapshot(self, step: str) -> str:
        raise NotImplementedError

    async def find(self, step: str, text: str) -> str | None:
        return None  # no find tool

    async def read_on(self, answer: str) -> str | None:
        return None  # the whole snapshot came in one answer

    async def click(self, ref: str) -> None:
        raise NotImplementedError

    async def type(self, ref: str, text: str) -> None:
        raise NotImplementedError


class TabgateDriver(Driver):
    tab: int = 0

    async def open(self, url: str) -> None:
        if not self.tab:  # the agent's own tab, opened on the first page
            created = await self.call("open", "browser_tab", {"action": "create", "url": url})
            self.tab = int(json.loads(unwrapped(created))["id"])
            await self.call("open", "browser_navigation", {"action": "wait_for_load", "tabId": self.tab})
            return
        await self.call("open", "browser_navigation", {"action": "navigate", "tabId": self.tab, "url": url})

    async def snapshot(self, step: str) -> str:
        return await self.call(step, "browser_page", {"action": "snapshot", "tabId": self.tab})

    async def find(self, step: str, text: str) -> str | None:
        return await self.call(step, "browser_page", {"action": "find", "tabId": self.tab, "text": text})

    async def read_on(self, answer: str) -> str | None:
        offset = re.search(r'"offset": (\d+)', answer)
        if offset is None:
            return None
        args = {"action": "snapshot", "tabId": self.tab, "offset": int(offset[1])}
        return await self.call("read", "browser_page", args)

    async def click(self, ref: str) -> None:
        await self.call("click", "browser_dom", {"action": "click", "tabId": self.tab, "ref": ref})

    async def type(self, ref: str, text: str) -> None:
        args = {"action": "type", "tabId": self.tab, "ref": ref, "text": text, "clear": True}
        await self.call("type", "browser_dom", args)


class PlaywrightDriver(Driver):
    async def open(self, url: str) -> None:
        await self.call("open", "browser_navigate", {"url": url})

    async def snapshot(self, step: str) -> str:
        return await self.call(step, "browser_snapshot", {})

    async def find(self, step: str, text: str) -> str | None:
        return await self.call(step, "browser_find", {"text": text})

    async def click(self, ref: str) -> None:
        await self.call("click", "browser_click", {"element": "Refund button", "target": ref})

    async def type(self, ref: str, text: str) -> None:
        await self.call("type", "browser_type", {"element": "Query field", "target": ref, "text": text})


class DevtoolsDriver(Driver):
    page: int = 0

    async def start(self) -> None:
        listed = await self.call("open", "list_pages", {})
        self.page = int(re.findall(r"^(\d+): .*\[selected\]", listed, re.M)[0])

    async def open(self, url: str) -> None:
        await self.call("open", "navigate_page", {"type": "url", "url": url, "pageId": self.page})

    async def snapshot(self, step: str) -> str:
        return await self.call(step, "take_snapshot", {"pageId": self.page})

    async def click(self, ref: str) -> None:
        await self.call("click", "click", {"uid": ref, "pageId": self.page})

    async def type(self, ref: str, text: str) -> None:
        await self.call("type", "fill", {"uid": ref, "value": text, "pageId": self.page})


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


@dataclass
class Outcome:
    """What the script measured for one tool; None where the tool has no such step."""

    name: str
    version: str
    table_snapshot_s: float = 0.0
    table_snapshot_chars: int = 0
    find_ms: float | None = None
    find_chars: int | None = None
    reach_chars: int = 0  # row 877 by the cheapest route the tool offers (find, else a snapshot)
    reach_calls: int = 0
    reading_chars: int = 0  # row 877 by reading the snapshot on
    reading_calls: int = 0
    click_ms: float = 0.0
    type_ms: float = 0.0
    big_first_s: float = 0.0
    big_note: str = ""


async def _reading(driver: Driver) -> tuple[int, int]:
    answer = await driver.snapshot("read")
    chars, calls = len(answer), 1
    while ROW not in answer:
        more = await driver.read_on(answer)
        if more is None:
            raise RuntimeError(f"{driver.name}: row {ROW} never came while reading the snapshot on")
        answer, chars, calls = more, chars + len(more), calls + 1
    return chars, calls


async def script(driver: Driver, site: str) -> Outcome:
    """The same steps for every tool, on the same pages."""
    out = Outcome(driver.name, driver.version)
    await driver.start()
    await driver.open(f"{site}/{TABLE}")
    await driver.snapshot("warm-up")
    for _ in range(SNAPSHOTS):
        out.table_snapshot_chars = len(await driver.snapshot("snapshot"))
    out.table_snapshot_s = round(statistics.median(driver.seconds("snapshot")), 3)
    found = await driver.find("warm-up", ROW)
    if found is not None:
        for _ in range(FINDS):
            found = await driver.find("find", ROW)
        out.find_ms = _ms(driver.seconds("find"))
        out.find_chars = len(found or "")
        out.reach_chars, out.reach_calls = out.find_chars, 1
    out.reading_chars, out.reading_calls = await _reading(driver)
    if found is None:
        out.reach_chars, out.reach_calls = out.reading_chars, out.reading_calls
    await driver.open(f"{site}/{CLICK_PAGE}")
    button = driver.ref(await driver.snapshot("look"), 'button "Refund"')
    for _ in range(ACTS + 2):
        await driver.click(button)
    out.click_ms = _ms(driver.seconds("click")[2:])  # after two warm-up clicks
    await driver.open(f"{site}/{TYPE_PAGE}")
    field_ref = driver.ref(await driver.snapshot("look"), 'textbox "Query"')
    for n in range(ACTS + 2):
        await driver.type(field_ref, f"order {n}")
    out.type_ms = _ms(driver.seconds("type")[2:])
    # Last: the page that may take the longest, or fail. Opening it and its first snapshot (playwright-mcp's
    # navigate already answers one).
    t = time.perf_counter()
    try:
        await driver.open(f"{site}/{BIG}")
        out.big_note = f"{len(await driver.snapshot('big')):,} chars"
    except RuntimeError as error:
        out.big_note = f"failed: {' '.join(str(error).split())}"[:160]
    out.big_first_s = round(time.perf_counter() - t, 2)
    return out


def _installed(pin: NpmPin) -> Path:
    try:
        return install_pin(pin)
    except PinError as error:
        raise RuntimeError(str(error)) from None


def _peer_params(pin: NpmPin, folder: Path) -> StdioServerParameters:
    """Each peer on Debian's Chromium, headless, with a throwaway profile: no browser download, no state."""
    chromium = chromium_path()
    if pin is PLAYWRIGHT_MCP:
        flags = ["--headless", "--isolated", "--no-sandbox", "--executable-path", chromium,
                 "--output-dir", str(folder)]  # fmt: skip
    else:
        flags = ["--headless", "--isolated", "--executablePath", chromium, "--chromeArg=--no-sandbox",
                 "--usageStatistics=false", "--performanceCrux=false"]  # fmt: skip
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH: the peers run on it")
    return StdioServerParameters(command=node, args=[str(_installed(pin)), *flags], cwd=str(folder))


type MakeDriver = Callable[[Client], Driver]


def _agent(params: StdioServerParameters, make: MakeDriver, site: str, ready: threading.Event) -> AgentThread:
    """The scripted agent, started; it runs the script once `ready` is set."""

    async def body(client: Client, _notices: list[Any]) -> Outcome:
        await wait_listed(client, lambda names: len(names) > 3, timeout=60)
        if not await anyio.to_thread.run_sync(ready.wait, 60):
            raise RuntimeError("the agent was never let go")
        return await script(make(client), site)

    running = AgentThread(params, body)
    running.start()
    return running


def _finished(running: AgentThread) -> Outcome:
    """The agent's outcome; an error inside the SDK's task groups is raised as the error it is."""
    try:
        outcome: Outcome = running.outcome(1800)
    except BaseExceptionGroup as group:
        while isinstance(group, BaseExceptionGroup) and len(group.exceptions) == 1:
            group = group.exceptions[0]
        raise RuntimeError(f"{type(group).__name__}: {group}") from None
    return outcome


def _peer(pin: NpmPin, site: str, tmp: Path) -> Outcome:
    folder = tmp / pin.package.replace("/", "-")
    folder.mkdir()
    name = "playwright-mcp" if pin is PLAYWRIGHT_MCP else "chrome-devtools-mcp"
    kind, pattern = (
        (PlaywrightDriver, r"\[ref=(\w+)\]") if pin is PLAYWRIGHT_MCP else (DevtoolsDriver, r"uid=(\S+)")
    )
    go = threading.Event()
    go.set()
    return _finished(
        _agent(_peer_params(pin, folder), lambda c: kind(name, pin.version, c, pattern), site, go)
    )


def _tabgate(site: str, tmp: Path) -> Outcome:
    """Through the agent path, trusted to act unasked (the person's *act without asking*), or else allowed
    for the session at its first question of each kind."""
    from tests.support.bench import ROOT

    version = json.loads((ROOT / "dist" / "extension" / "manifest.json").read_text())["version"]
    (tmp / "profile").mkdir()
    trusted = threading.Event()
    with sync_playwright() as pw:
        env = desktop_env({"TABGATE_LOG_DIR": str(tmp / "logs"), "TABGATE_DATA_DIR": str(tmp / "data")}, tmp)
        profile = gateway_profile(pw, tmp / "profile", env, [site])
        with browser(pw, profile, env) as ext:
            gateway(ext, True)
            running = _agent(
                params_from_codex(codex_config()),
                lambda c: TabgateDriver("tabgate", version, c, r"\[ref=(e\d+)\]"),
                site,
                trusted,
            )
            deadline = time.monotonic() + 60
            while not (agents := [a for a in ext.send({"type": "agents"})["agents"] if a["connected"]]):
                if time.monotonic() > deadline:
                    raise RuntimeError("the agent never reached Tabgate")
                time.sleep(0.1)
            # The agent's own entry: an interpreter's path alone trusts no script run by it. A bench run as a
            # module (`python -m tests.support.bench`) cannot be trusted at all (the name does not say which
            # file runs): the person then allows each question for the session, as it comes.
            if (entry := agents[0]["trustEntry"]) is not None:
                ext.send({"type": "config/set", "patch": {"gatewayTrusted": [entry]}})
            trusted.set()
            allow_for_the_session(ext, running, threading.Event())
            outcome = _finished(running)
            gateway(ext, False)
    return outcome


def _chromium_version() -> str:
    return subprocess.run([chromium_path(), "--version"], capture_output=True, text=True).stdout.strip()


def measure_all() -> list[Outcome]:
    """Tabgate and the two peers in one run, on one page server."""
    with serve(FixturePages) as site, tempfile.TemporaryDirectory() as tmp:
        outcomes = [_peer(PLAYWRIGHT_MCP, site, Path(tmp)), _peer(CHROME_DEVTOOLS_MCP, site, Path(tmp))]
        (Path(tmp) / "tabgate").mkdir()
        return [_tabgate(site, Path(tmp) / "tabgate"), *outcomes]


# What the side-by-side table shows: (label, Outcome field, unit).
ROWS = (
    ("1,000-row table: snapshot", "table_snapshot_s", "s"),
    ("…its size", "table_snapshot_chars", "chars"),
    ("find on the table", "find_ms", "ms"),
    ("row 877, cheapest route: characters", "reach_chars", "chars"),
    ("…calls", "reach_calls", ""),
    ("row 877 by reading the snapshot on: characters", "reading_chars", "chars"),
    ("…calls", "reading_calls", ""),
    ("click p50", "click_ms", "ms"),
    ("type p50", "type_ms", "ms"),
    ("100,000-element page: open it, first snapshot", "big_first_s", "s"),
)


def _targets(peers: list[Outcome]) -> dict[str, str]:
    """Tabgate's targets, from the peers measured in the same run (issue 18)."""
    best = min(p.reach_chars for p in peers)
    return {
        "table_snapshot_s": f"≤ {min(p.table_snapshot_s for p in peers)}",
        "find_ms": "≤ 100",
        "reach_chars": f"≤ {best // 4}",
        "click_ms": f"≤ {min(p.click_ms for p in peers)}",
        "type_ms": f"≤ {min(p.type_ms for p in peers)}",
        "big_first_s": "≤ 3",
    }


def table(outcomes: list[Outcome]) -> str:
    """The side-by-side table (Markdown), Tabgate first, with Tabgate's target beside each row."""
    targets = _targets(outcomes[1:])
    head = ["", *(f"{o.name} {o.version}" for o in outcomes), "Tabgate's target"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, key, unit in ROWS:
        cells = []
        for o in outcomes:
            value = getattr(o, key)
            cells.append("none" if value is None else f"{value:,} {unit}".strip())
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {targets.get(key, '')} |")
    notes = "; ".join(f"{o.name}: {o.big_note}" for o in outcomes)
    return "\n".join(lines) + f"\n\n100,000-element page: {notes}. {_chromium_version()}."


def peers() -> list[Figure]:
    from tests.support.bench import Figure

    outcomes = measure_all()
    print(table(outcomes), flush=True)
    targets = _targets(outcomes[1:])
    figures = []
    for o in outcomes:
        for label, key, unit in ROWS:
            value = getattr(o, key)
            if value is None or key.endswith("calls"):
                continue
            note = f"{o.name} {o.version}: {label.lstrip('…')}"
            if key == "reach_chars":
                note += f" in {o.reach_calls} call(s)"
            if key == "big_first_s":
                note += f" ({o.big_note})"
            target = targets.get(key, "") if o.name == "tabgate" else ""
            figures.append(Figure(f"peers_{key}_{o.name}", float(value), unit, target, note))
    return figures
