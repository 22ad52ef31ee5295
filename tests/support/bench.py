"""`python3 build.py bench [NAME …]`: measured figures beside their targets, written to dist/bench.json
(a run of named benchmarks: dist/bench-partial.json).

Figures, not assertions: the machine is shared and noisy, so each figure is a median over repeated runs in
one process, and comparisons (host vs direct, dispatcher vs bare call) are measured in the same run.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.support import bench_boot
from tests.support.bench_apps import app_view_drawn
from tests.support.bench_browser import browser_actions
from tests.support.bench_clients import first_results
from tests.support.bench_gateway import gateway
from tests.support.bench_handshake import handshake_auto_vs_legacy
from tests.support.bench_navigation import held_navigation
from tests.support.bench_peers import peers
from tests.support.bench_wire import host_vs_direct
from tests.support.browser import install_host, launch

ROOT = Path(__file__).resolve().parents[2]
DEMO_SERVER = ROOT / "tests" / "host" / "servers" / "demo_server.py"


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
        Figure(
            "python_ready_offscreen",
            median(boot),
            "ms",
            note="offscreen script start → core loaded, 5 fresh profiles",
        ),
        Figure(
            "python_ready_from_launch",
            median(wall),
            "ms",
            note="browser launch → status ready, 5 fresh profiles",
        ),
    ]


def _host_dirs(tmp: Path, config_text: str) -> tuple[Path, dict[str, str]]:
    """A profile with the host installed as the user would, and where its logs and data go."""
    from tests.host.hostproc import install

    (tmp / "profile").mkdir()
    config = tmp / "config.toml"
    config.write_text(config_text)
    env = {**os.environ, "TABGATE_LOG_DIR": str(tmp / "logs"), "TABGATE_DATA_DIR": str(tmp / "data")}
    return install(tmp / "profile", config), env


def host_spawn() -> list[Figure]:
    from tests.host.hostproc import HostProcess

    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        launcher, env = _host_dirs(Path(tmp), "")
        for _ in range(10):
            t0 = time.perf_counter()
            host = HostProcess.start(launcher, env=env)
            host.initialize()
            samples.append((time.perf_counter() - t0) * 1000)
            host.close()
    return [
        Figure(
            "host_spawn_to_initialize",
            median(samples),
            "ms",
            "≤ 150",
            "launcher spawn → initialize answer, 10 runs",
        )
    ]


def _stdio_server(name: str, command: str, args: list[str]) -> str:
    return f"[mcp_servers.{name}]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def host_rss() -> list[Figure]:
    """Resident memory of the host process with three servers connected (servers' own memory apart)."""
    from tests.host.hostproc import HostProcess

    config = "".join(
        [
            _stdio_server("notes", sys.executable, ["-P", "-m", "native_host.notes_server"]),
            _stdio_server("demo", sys.executable, [str(DEMO_SERVER)]),
            _stdio_server("time", str(Path(sys.executable).parent / "mcp-server-time"), []),
        ]
    )
    with tempfile.TemporaryDirectory() as tmp:
        launcher, env = _host_dirs(Path(tmp), config)
        host = HostProcess.start(launcher, env=env)
        host.initialize()
        host.wait_ready("notes", "demo", "time")
        host.call("tools/list")
        rss = _rss_kib(host.process.pid) / 1024
        host.close()
    return [
        Figure(
            "host_rss_three_servers", round(rss, 1), "MiB", note="host process VmRSS; notes, demo, time ready"
        )
    ]


PAGE_LOOP = """async ([message, n]) => {
    const out = [];
    for (let i = 0; i < n + 20; i++) {
        const t = performance.now();
        const r = await chrome.runtime.sendMessage(message);
        if (r.error || r.fatal || r.success === false) throw new Error(JSON.stringify(r).slice(0, 500));
        if (i >= 20) out.push(performance.now() - t);
    }
    return out;
}"""


def extension_round_trips() -> list[Figure]:
    """From an extension page's chrome.runtime.sendMessage to the answer, median of 200 each:
    a host `ping` (page→SW→host), `browser_tab` query, a trivial tool on the bundled notes server and the
    tool filter Python ranks."""
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        profile.mkdir()
        env = {"TABGATE_LOG_DIR": str(Path(tmp) / "logs"), "TABGATE_DATA_DIR": str(Path(tmp) / "data")}
        install_host(profile, Path(tmp) / "config.toml", env=env)  # writes the default config: notes
        with launch(pw, profile, env=env) as ext:
            ext.wait_python_ready()
            ext.send({"type": "config/set", "patch": {"mcpTools": True}})
            deadline = time.monotonic() + 30
            while not any(s["status"] == "ready" for s in ext.send({"type": "status"})["servers"]):
                if time.monotonic() > deadline:
                    raise RuntimeError("the notes server did not become ready")
                time.sleep(0.2)

            # Measured from an extension page that does nothing else (the popup reacts to every event).
            ext.page.goto(f"chrome-extension://{ext.id}/manifest.json")

            def loop(message: dict[str, object]) -> float:
                return median(ext.page.evaluate(PAGE_LOOP, [message, 200]))

            def dispatch(name: str, args: dict[str, object]) -> dict[str, object]:
                item = {
                    "type": "function_call",
                    "name": name,
                    "arguments": json.dumps(args),
                    "call_id": "bench",
                }
                return {"type": "dispatch", "item": item}

            ping = loop({"type": "host/request", "method": "ping"})
            tab = loop(dispatch("browser_tab", {"action": "query", "active": True}))
            note = loop(dispatch("mcp__notes__search_notes", {"query": "bench", "limit": 1}))
            ranked = loop({"type": "tools/filter", "text": "note sea"})
    return [
        Figure("native_round_trip_ping", ping, "ms", note="page→SW→host ping→page, median of 200"),
        Figure(
            "dispatch_browser_tab_query",
            tab,
            "ms",
            "≤ 3",
            "page→SW→Python→SW chrome.tabs→page, median of 200",
        ),
        Figure(
            "dispatch_mcp_notes_search",
            note,
            "ms",
            "≤ 4",
            "page→SW→Python→host→notes server→page, median of 200",
        ),
        Figure(
            "tools_filter_round_trip",
            ranked,
            "ms",
            note="page→SW→Python ranks the offered tools→page (popup filter, per key), median of 200",
        ),
    ]


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


def faults_extension() -> list[Figure]:
    from tests.support import fault_bench  # imported lazily: it imports Figure from this module

    return fault_bench.extension_faults()


def faults_host_rss() -> list[Figure]:
    from tests.support import fault_bench

    return fault_bench.host_rss_unread()


BENCHES: dict[str, Callable[[], list[Figure]]] = {
    "faults_extension": faults_extension,
    "faults_host_rss": faults_host_rss,
    "dispatcher_overhead": dispatcher_overhead,
    "python_ready": python_ready,
    "boot": bench_boot.measure,
    "host_spawn": host_spawn,
    "host_vs_direct": host_vs_direct,
    "host_rss": host_rss,
    "extension_round_trips": extension_round_trips,
    "browser_actions": browser_actions,
    "gateway": gateway,
    "clients_first_result": first_results,
    "handshake": handshake_auto_vs_legacy,
    "peers": peers,
    "navigation": held_navigation,
    "apps": app_view_drawn,
}


def main(argv: list[str]) -> int:
    """Every benchmark, written to dist/bench.json (the figures the README quotes), or only those named,
    written to dist/bench-partial.json so a partial run never replaces the whole one."""
    unknown = [name for name in argv if name not in BENCHES]
    if unknown:
        print(
            f"bench: no benchmark named {', '.join(unknown)}; the benchmarks: {', '.join(BENCHES)}",
            file=sys.stderr,
        )
        return 2
    chosen = argv or list(BENCHES)
    figures: list[Figure] = []
    errors: dict[str, str] = {}
    for name in chosen:
        print(f"[bench] {name} …", flush=True)
        try:
            figures += BENCHES[name]()
        # A failed bench is reported, and the others still run: a missing input fails with pytest's
        # Failed (tests.support.npm_packages), which is not an Exception.
        except (Exception, pytest.fail.Exception) as e:
            errors[name] = f"{type(e).__name__}: {e}"
    out = ROOT / "dist" / ("bench-partial.json" if argv else "bench.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "benchmarks": chosen,
                "figures": [asdict(f) | {"meets_target": f.meets_target} for f in figures],
                "errors": errors,
            },
            indent=2,
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
