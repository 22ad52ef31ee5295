"""Python's boot, old and new side by side (issue 12), over fresh profiles, interleaved so both see the
same machine load:

- old: Pyodide on the offscreen document's thread, pydantic and the core loaded with loadPackage (the boot
  before issue 12, kept in tests/support/legacy_offscreen.js and swapped into a copy of the build);
- new: the shipped build, Python in a dedicated worker restored from the build's memory snapshot.

Each launch opens the popup at once with a timer-gap probe, makes an update_plan call before Python is
ready, and reads the extension renderer's memory once Python is up. The relay cost of the worker hop is
the difference between the two builds' update_plan round trips from an extension page (medians).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.sync_api import Playwright, sync_playwright

from tests.support.boot_probe import PLAN_CALL, BootRun, watch_boot
from tests.support.browser import EXTENSION_DIR, launch

if TYPE_CHECKING:
    from tests.support.bench import Figure

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
ROUND_TRIPS = 200
TRIP_ROUNDS = 4  # fresh browsers per build, interleaved: the relay figure is a small difference of medians

_ROUND_TRIPS = """async ([message, n]) => {
    const out = [];
    for (let i = 0; i < n + 20; i++) {
        const t = performance.now();
        const r = await chrome.runtime.sendMessage(message);
        if (r.success !== true) throw new Error(JSON.stringify(r).slice(0, 500));
        if (i >= 20) out.push(performance.now() - t);
    }
    return out;
}"""


def _legacy_build(folder: Path) -> Path:
    legacy = folder / "extension-legacy"
    shutil.copytree(EXTENSION_DIR, legacy)
    shutil.copy2(ROOT / "tests" / "support" / "legacy_offscreen.js", legacy / "worker" / "offscreen.js")
    return legacy


def _round_trips(pw: Playwright, extension: Path, profile: Path) -> list[float]:
    with launch(pw, profile, extension_dir=extension) as ext:
        ext.wait_python_ready()
        ext.page.goto(f"chrome-extension://{ext.id}/manifest.json")  # a page that does nothing else
        samples: list[float] = ext.page.evaluate(
            _ROUND_TRIPS, [{"type": "dispatch", "item": PLAN_CALL}, ROUND_TRIPS]
        )
        return samples


def measure() -> list[Figure]:
    from tests.support.bench import Figure, median  # bench.py lists this measurement

    runs: dict[str, list[BootRun]] = {"old": [], "new": []}
    idle: dict[str, list[BootRun]] = {"old": [], "new": []}  # an extension page with no work of its own
    trips: dict[str, list[float]] = {"old": [], "new": []}
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        builds = {"old": _legacy_build(Path(tmp)), "new": EXTENSION_DIR}
        for i in range(RUNS):
            for name, extension in builds.items():
                runs[name].append(watch_boot(pw, Path(tmp) / f"{name}-{i}", extension, timeout_s=300))
                profile = Path(tmp) / f"idle-{name}-{i}"
                idle[name].append(watch_boot(pw, profile, extension, 300, page_path="build-info.json"))
        for i in range(TRIP_ROUNDS):
            for name, extension in builds.items():
                trips[name] += _round_trips(pw, extension, Path(tmp) / f"trips-{name}-{i}")
    for name, boots in runs.items():
        for run in boots:
            if run.ready["python"] != "ready" or run.plan_answer.get("success") is not True:
                raise RuntimeError(f"{name} boot did not answer: {run.ready} {run.plan_answer}")
    new_paths = {run.ready["boot"]["path"] for run in runs["new"]}
    if new_paths != {"snapshot"}:
        raise RuntimeError(f"the new build did not restore its snapshot every time: {new_paths}")

    def value(run: BootRun, pick: str) -> float:
        return float(run.ready["bootMs"]) if pick == "bootMs" else float(getattr(run, pick))

    def figure(
        name: str,
        pick: str,
        target: str,
        note: str,
        unit: str = "ms",
        watched: dict[str, list[BootRun]] | None = None,
    ) -> list[Figure]:
        watched = watched or runs
        new = [value(r, pick) for r in watched["new"]]
        old = [value(r, pick) for r in watched["old"]]
        return [
            Figure(f"{name}_new", median(new), unit, target, f"{note}; worker + snapshot, median of {RUNS}"),
            Figure(f"{name}_old", median(old), unit, "", "same, the boot before issue 12, interleaved"),
        ]

    steps = [r.ready["boot"]["steps"] for r in runs["new"]]
    restore_note = ", ".join(f"{k} {statistics.median(s[k] for s in steps):.0f}" for k in steps[0])
    relay = statistics.median(trips["new"]) - statistics.median(trips["old"])
    return [
        *figure(
            "boot_ready_after_offscreen_start",
            "bootMs",
            "≤ 1000",
            f"fresh profiles (worker: {restore_note} ms)",
        ),
        *figure(
            "boot_worst_page_stall",
            "worst_stall_in_boot_ms",
            "≤ 50",
            "worst timer gap in an extension page with no work of its own (build-info.json) opened at launch,"
            " from when the offscreen document exists → ready",
            watched=idle,
        ),
        *figure(
            "boot_worst_page_stall_with_startup",
            "worst_stall_with_load_ms",
            "",
            "the same from the page's first line: Chromium's start-up included (40-150 ms with no Python)",
            watched=idle,
        ),
        *figure(
            "boot_worst_popup_stall",
            "worst_stall_with_load_ms",
            "",
            "the same in the popup opened at launch, its own first load included (40-80 ms with no Python)",
        ),
        Figure(
            "boot_worst_popup_stall_after_its_load_new",
            median([r.worst_stall_ms for r in runs["new"]]),
            "ms",
            "≤ 50",
            f"the popup opened at launch, its load event → ready; median of {RUNS}",
        ),
        *figure(
            "boot_first_update_plan_from_launch",
            "plan_ms",
            "≤ 1500",
            "browser launch → answer to an update_plan sent at once",
        ),
        *figure(
            "boot_extension_rss", "rss_mib", "", "extension renderer process VmRSS, Python loaded", "MiB"
        ),
        Figure(
            "boot_relay_hop_per_call",
            round(relay, 3),
            "ms",
            "≤ 0.3",
            f"update_plan round trip from a page, new − old build, medians of {TRIP_ROUNDS * ROUND_TRIPS}"
            " each",
        ),
        Figure(
            "boot_update_plan_round_trip_new",
            median(trips["new"]),
            "ms",
            note="page→SW→(channel)→Python worker→SW→page",
        ),
        Figure(
            "boot_update_plan_round_trip_old",
            median(trips["old"]),
            "ms",
            note="page→SW→(channel)→offscreen thread→SW→page",
        ),
    ]
