"""The test tiers `build.py test` runs, one pytest process per tier, and what each passed.

The tiers run in two lanes side by side, each lane one tier after another: the host tier mostly waits on the
processes it starts, so it fits beside the browser tiers on two cores. Nothing machine-wide collides: hosts
of the host tier keep their gateway place apart unless a test claims the default place, and tests take turns
at it through a lock (tests/support/default_place.py). The clients tier comes after the browser tiers in
their lane: its agents read the default place's host state, which any browser tier's host writes (a host of
the host tier beside it writes there only while its test holds the lock). Each tier's output goes to
dist/pytest-<tier>.log and is printed whole when the tier ends. Each tier's pytest is given only its own
test files (buildsys/tier_files.py)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from buildsys.project import CACHE, DIST, ROOT, BuildError, log
from buildsys.tier_files import files_by_tier

TIERS = ("lint", "unit", "pyodide", "host", "e2e", "faults", "clients")
LANES = (("e2e", "faults", "clients"), ("lint", "unit", "pyodide", "host"))
# Compiled bytecode of every Python process the tiers start (pytest's rewritten test modules, hosts, adapters,
# servers), kept outside the tree: a shell with PYTHONDONTWRITEBYTECODE set made each process compile the
# project afresh and each tier rewrite every test module's asserts again.
PYCACHE = CACHE / "pycache"


@dataclass(frozen=True)
class TierResult:
    tier: str
    rc: int
    passed: int
    failed: int
    seconds: float

    @property
    def ok(self) -> bool:
        # Exit 5 (no tests collected) is a failure too: a tier that cannot run must say so.
        return self.rc == 0 and self.passed > 0


def run_tiers(py: Path, tiers: list[str]) -> int:
    """Run the named tiers (all when none), print the totals; 0 only when every tier passed something."""
    unknown = [t for t in tiers if t not in TIERS]
    if unknown:
        raise BuildError(f"unknown test tier(s) {unknown}; tiers are {', '.join(TIERS)}")
    wanted = set(tiers or TIERS)
    files = files_by_tier(TIERS)  # before any tier starts: a file without its tier stops the whole run
    DIST.mkdir(parents=True, exist_ok=True)
    results: list[TierResult] = []
    printing = threading.Lock()

    def lane(names: tuple[str, ...]) -> None:
        for tier in names:
            if tier in wanted:
                result = run_tier(py, tier, files[tier], printing)
                results.append(result)  # list.append is atomic

    lanes = [threading.Thread(target=lane, args=(names,), name=f"lane-{names[0]}") for names in LANES]
    for thread in lanes:
        thread.start()
    for thread in lanes:
        thread.join()
    totals = {"passed": sum(r.passed for r in results), "failed": sum(r.failed for r in results)}
    failed_tiers = [f"{r.tier} (pytest exit {r.rc}, {r.passed} passed)" for r in results if not r.ok]
    for r in sorted(results, key=lambda r: TIERS.index(r.tier)):
        log(f"tier {r.tier}: {r.passed} passed, {r.failed} failed, {r.seconds / 60:.1f} min")
    if failed_tiers:
        log("FAILED tiers: " + "; ".join(failed_tiers))
    print(f"tabgate: {totals['passed']} passed, {totals['failed']} failed")
    return 1 if failed_tiers else 0


def tier_env() -> dict[str, str]:
    """This environment, with bytecode written under PYCACHE instead of not at all."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(PYCACHE)}


def run_tier(py: Path, tier: str, files: list[Path], printing: threading.Lock) -> TierResult:
    """One tier's pytest over its files, its output kept in dist/pytest-<tier>.log and printed whole when it
    ends."""
    report = DIST / f"pytest-{tier}.json.xml"
    output = DIST / f"pytest-{tier}.log"
    with printing:
        log(f"tier {tier} started (output: {output.relative_to(ROOT)})")
    report.unlink(missing_ok=True)  # a report left by an earlier run must not count for this one
    started = time.monotonic()
    with output.open("wb") as sink:
        given = [str(path.relative_to(ROOT)) for path in files]
        rc = subprocess.run(
            [str(py), "-m", "pytest", "-m", tier, "-p", "no:cacheprovider", f"--junitxml={report}", *given],
            cwd=ROOT,
            env=tier_env(),
            stdout=sink,
            stderr=subprocess.STDOUT,
        ).returncode
    seconds = time.monotonic() - started
    passed, failed = junit_counts(report)
    with printing:
        log(f"tier {tier} ended after {seconds / 60:.1f} min (pytest exit {rc}):")
        print(output.read_text(errors="replace"), end="", flush=True)
    return TierResult(tier, rc, passed, failed, seconds)


def junit_counts(path: Path) -> tuple[int, int]:
    """(passed, not passed) from a JUnit report; skipped counts as not passed, a missing report as one."""
    if not path.exists():
        return 0, 1
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    tests = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return tests - bad - skipped, bad + skipped
