"""One fresh-profile launch watched the way a person meets it: the popup opened at once, a timer-gap probe
in it from its first line, a call made before Python is ready, and what the boot reported.

Used by the e2e boot tests (assertions without timings, except the stall bound the issue sets) and by
`build.py bench` (figures). Chromium's extension pages share one renderer main thread, so a boot that runs
on the offscreen document's thread shows up here as long gaps between timer ticks.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Playwright

from tests.support.browser import CHROMIUM_FLAGS, EXTENSION_DIR, PYTHON_BOOT_TIMEOUT_S, chromium_path

TICK_MS = 5
# Installed before any page script runs: records every gap between ticks of a 5 ms interval, when the page's
# own load ended, when the offscreen document that starts Python exists (the boot's start as a page can see
# it: the gaps before it are Chromium starting up, 40-150 ms here with no Python at all), and when the page
# learns (from an `events` port, as the popup does) that Python is no longer booting. Only gaps that end by
# then count as stalls during boot: what the popup itself does once Python is ready is its own work. Gaps
# before the page's load event are its own first load too (a fresh profile's
# popup shows 40-80 ms gaps while loading even when no Python starts at all), so they are counted apart.
PROBE = f"""(() => {{
  if (!globalThis.chrome?.runtime?.connect) return;
  const probe = {{ ticks: [], last: performance.now(), readyAt: null, loadedAt: null, bootAt: null,
                  startedAt: Date.now() }};
  addEventListener("load", () => (probe.loadedAt = performance.now()));
  probe.timer = setInterval(() => {{
    const now = performance.now();
    probe.ticks.push([now, now - probe.last]);
    probe.last = now;
  }}, {TICK_MS});
  chrome.runtime.connect({{ name: "events" }}).onMessage.addListener((m) => {{
    const done = m.type === "status" && m.python !== "booting";
    if (done && probe.readyAt === null) probe.readyAt = performance.now();
  }});
  // When the offscreen document that starts Python exists: the boot's start, as far as a page can tell.
  const poll = setInterval(async () => {{
    const found = await chrome.runtime.getContexts({{ contextTypes: ["OFFSCREEN_DOCUMENT"] }});
    if (found.length && probe.bootAt === null) {{
      probe.bootAt = performance.now();
      clearInterval(poll);
    }}
  }}, 20);
  globalThis.__bootProbe = probe;
}})();"""

_SEND = """async ([m, t]) => {
    const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('no answer to ' + m.type)), t));
    return await Promise.race([chrome.runtime.sendMessage(m), timer]);
}"""

PLAN_CALL = {
    "type": "function_call",
    "name": "update_plan",
    "arguments": json.dumps({"plan": [{"step": "boot", "status": "in_progress"}]}),
    "call_id": "boot-1",
}


@dataclass
class BootRun:
    page_started_at: float  # epoch ms when the popup's first line ran (compare with status.bootedAt)
    plan_answer: dict[str, Any]  # the update_plan call made at once
    plan_ms: float  # browser launch → that answer
    ready: dict[str, Any]  # status once Python is ready
    worst_stall_ms: float  # longest timer gap in the popup beyond the tick, the page's load → Python ready
    worst_stall_with_load_ms: float  # the same from the page's first line, its own loading included
    worst_stall_in_boot_ms: float  # gaps that began once the offscreen document existed → ready
    boot_window_ms: float  # the offscreen document existing → the page hearing Python is ready
    stalls_over_50: int
    rss_mib: float  # the extension's renderer process(es), Python loaded


@contextmanager
def probed_launch(
    pw: Playwright, profile: Path, extension_dir: Path = EXTENSION_DIR, page_path: str = "ui/popup.html"
) -> Iterator[tuple[BrowserContext, Page, float]]:
    """Chromium with the extension and one of its pages (the popup unless told) open at once, the probe in
    it; yields the launch time."""
    t0 = time.perf_counter()
    context = pw.chromium.launch_persistent_context(
        str(profile),
        executable_path=chromium_path(),
        headless=True,
        args=[
            *CHROMIUM_FLAGS,
            f"--disable-extensions-except={extension_dir}",
            f"--load-extension={extension_dir}",
        ],
    )
    try:
        context.add_init_script(PROBE)
        worker = (
            context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
        )
        page = context.new_page()
        # Not waiting for "load": with Python on the pages' thread (the old boot) it fires after the boot.
        page.goto(f"chrome-extension://{worker.url.split('/')[2]}/{page_path}", wait_until="commit")
        yield context, page, t0
    finally:
        context.close()


def send(page: Page, message: dict[str, Any], timeout_s: float = PYTHON_BOOT_TIMEOUT_S) -> Any:
    return page.evaluate(_SEND, [message, int(timeout_s * 1000)])


def watch_boot(
    pw: Playwright,
    profile: Path,
    extension_dir: Path = EXTENSION_DIR,
    timeout_s: float = PYTHON_BOOT_TIMEOUT_S,
    page_path: str = "ui/popup.html",
) -> BootRun:
    with probed_launch(pw, profile, extension_dir, page_path) as (_context, page, t0):
        plan = send(page, {"type": "dispatch", "item": PLAN_CALL}, timeout_s)
        plan_ms = (time.perf_counter() - t0) * 1000
        deadline = time.monotonic() + timeout_s
        ready = send(page, {"type": "status"})
        while ready["python"] == "booting" and time.monotonic() < deadline:
            time.sleep(0.05)
            ready = send(page, {"type": "status"})
        page.wait_for_function("() => __bootProbe.readyAt !== null", timeout=timeout_s * 1000)
        started_at = float(page.evaluate("() => __bootProbe.startedAt"))
        page.wait_for_function("() => __bootProbe.loadedAt !== null", timeout=timeout_s * 1000)
        ticks: list[list[float]] = page.evaluate(
            """() => { const p = __bootProbe; clearInterval(p.timer);
                       return p.ticks.filter(([end]) => end <= p.readyAt)
                                     .map(([end, gap]) => [end - gap >= p.loadedAt ? 1 : 0, gap,
                                                           end - gap >= p.bootAt ? 1 : 0]); }"""
        )
        stalls = [gap - TICK_MS for after_load, gap, _ in ticks if after_load]
        with_load = [gap - TICK_MS for _, gap, _ in ticks]
        in_boot = [gap - TICK_MS for _, gap, after_status in ticks if after_status]
        window = float(page.evaluate("() => __bootProbe.readyAt - (__bootProbe.bootAt ?? 0)"))
        return BootRun(
            page_started_at=started_at,
            plan_answer=plan,
            plan_ms=plan_ms,
            ready=ready,
            worst_stall_ms=max(stalls, default=0.0),
            worst_stall_with_load_ms=max(with_load, default=0.0),
            worst_stall_in_boot_ms=max(in_boot, default=0.0),
            boot_window_ms=window,
            stalls_over_50=sum(1 for s in stalls if s > 50),
            rss_mib=extension_rss_mib(),
        )


def extension_rss_mib() -> float:
    """Resident memory of Chromium's extension renderer processes (service worker, pages, offscreen
    document and the Python worker all live there), counting only browsers this process started."""
    parents: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                # The parent pid follows the command name, which ends with the last ')'.
                parents[int(proc.name)] = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    ours = {os.getpid()}
    changed = True
    while changed:
        grown = {pid for pid, parent in parents.items() if parent in ours} - ours
        ours |= grown
        changed = bool(grown)
    total_kib = 0
    for pid in ours:
        try:
            # Zygote children rewrite their title: arguments separated by spaces, not NULs.
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if b"--type=renderer" in cmdline and b"--extension-process" in cmdline:
            total_kib += next(
                int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")
            )
    return round(total_kib / 1024, 1)
