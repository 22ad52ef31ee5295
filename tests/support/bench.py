"""`python3 build.py bench`: measured figures beside their targets, written to dist/bench.json.

Figures, not assertions: the machine is shared and noisy, so each figure is a median over repeated runs in
one process, and comparisons (host vs direct, dispatcher vs bare call) are measured in the same run.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.support.browser import install_host, launch

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: str = ""
    note: str = ""

    @property
    def meets_target(self) -> bool | None:
        if not self.target:
            return None
        op, bound = self.target.split(" ", 1)
        limit = float(bound.split()[0])
        return self.value <= limit if op == "≤" else self.value >= limit


def median(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)


# ---------------------------------------------------------------- measurements


def python_ready() -> list[Figure]:
    """Python-ready time in the offscreen document over 5 fresh-profile launches."""
    boot, wall = [], []
    with sync_playwright() as pw:
        for _ in range(5):
            with tempfile.TemporaryDirectory() as profile:
                t0 = time.perf_counter()
                with launch(pw, Path(profile)) as ext:
                    status = ext.wait_python_ready()
                    wall.append((time.perf_counter() - t0) * 1000)
                    boot.append(float(status["bootMs"]))
    return [
        Figure("python_ready_offscreen", median(boot), "ms", note="offscreen script start → core loaded, 5 fresh profiles"),
        Figure("python_ready_from_launch", median(wall), "ms", note="browser launch → status ready, 5 fresh profiles"),
    ]


def host_spawn() -> list[Figure]:
    from tests.support.hostproc import spawn_to_first_answer_ms

    samples = [spawn_to_first_answer_ms() for _ in range(10)]
    return [Figure("host_spawn_to_initialize", median(samples), "ms", "≤ 150", "launcher spawn → initialize answer, 10 runs")]


def native_round_trip() -> list[Figure]:
    """page → service worker → host `ping` → back, as an extension page sees it."""
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        profile.mkdir()
        config = Path(tmp) / "config.toml"
        config.write_text("")
        env = {"TABGATE_LOG_DIR": str(Path(tmp) / "logs"), "TABGATE_DATA_DIR": str(Path(tmp) / "data")}
        install_host(profile, config, env=env)
        with launch(pw, profile) as ext:
            ext.wait_python_ready()
            samples = ext.page.evaluate(
                """async (n) => {
                    const out = [];
                    for (let i = 0; i < n + 20; i++) {
                        const t = performance.now();
                        const r = await chrome.runtime.sendMessage({type: "host/request", method: "ping"});
                        if (!r.result) throw new Error(JSON.stringify(r));
                        if (i >= 20) out.push(performance.now() - t);
                    }
                    return out;
                }""",
                200,
            )
    return [Figure("native_round_trip_ping", median(samples), "ms", note="page→SW→host→SW→page, median of 200")]


def dispatcher_overhead() -> list[Figure]:
    """A no-op built-in through the whole core, on CPython and inside Pyodide, beside a bare call."""
    import asyncio
    import subprocess

    from tests.support import dispatch_bench

    cpython = asyncio.run(dispatch_bench.measure())
    out = subprocess.run(
        ["node", str(ROOT / "tests/support/pyodide_exec.mjs"), str(ROOT / "dist/extension/pyodide"),
         str(ROOT / "tests/support/dispatch_bench.py")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    pyodide = json.loads(out.strip().splitlines()[-1])
    note = "update_plan (empty plan) via Service.handle; median per call of 30×200"
    return [
        Figure("dispatch_noop_cpython", cpython["dispatch_us"], "µs", "≤ 20", note),
        Figure("bare_async_call_cpython", cpython["bare_call_us"], "µs", note="same run, for scale"),
        Figure("dispatch_noop_pyodide", pyodide["dispatch_us"], "µs", "≤ 200", note + " (Node 20)"),
        Figure("bare_async_call_pyodide", pyodide["bare_call_us"], "µs", note="same run, for scale"),
    ]


BENCHES: dict[str, Callable[[], list[Figure]]] = {
    "dispatcher_overhead": dispatcher_overhead,
    "python_ready": python_ready,
    "host_spawn": host_spawn,
    "native_round_trip": native_round_trip,
}


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHES)
    figures: list[Figure] = []
    errors: dict[str, str] = {}
    for name in chosen:
        print(f"[bench] {name} …", flush=True)
        try:
            figures += BENCHES[name]()
        except Exception as e:  # a failed bench is reported, and the others still run
            errors[name] = f"{type(e).__name__}: {e}"
    out = ROOT / "dist" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {"figures": [asdict(f) | {"meets_target": f.meets_target} for f in figures], "errors": errors}, indent=2
        )
    )
    width = max((len(f.name) for f in figures), default=10)
    print(f"\n{'figure':<{width}}  {'value':>10}  unit  target    note")
    for f in figures:
        mark = {True: "ok", False: "MISSED", None: ""}[f.meets_target]
        print(f"{f.name:<{width}}  {f.value:>10}  {f.unit:<4}  {f.target:<8}  {mark:<6} {f.note}")
    for name, err in errors.items():
        print(f"{name}: FAILED {err}")
    print(f"\nwritten to {out.relative_to(ROOT)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
