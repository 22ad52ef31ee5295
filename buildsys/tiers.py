"""The test tiers `build.py test` runs, one pytest process per tier, and what each passed."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from buildsys.project import DIST, ROOT, BuildError, log

TIERS = ("lint", "unit", "pyodide", "host", "e2e", "faults", "clients")


def run_tiers(py: Path, tiers: list[str]) -> int:
    """Run the named tiers (all when none), print the totals; 0 only when every tier passed something."""
    unknown = [t for t in tiers if t not in TIERS]
    if unknown:
        raise BuildError(f"unknown test tier(s) {unknown}; tiers are {', '.join(TIERS)}")
    totals = {"passed": 0, "failed": 0}
    failed_tiers = []
    for tier in tiers or TIERS:
        log(f"tier {tier}")
        report = DIST / f"pytest-{tier}.json"
        rc = subprocess.run(
            [
                str(py),
                "-m",
                "pytest",
                "-m",
                tier,
                "-p",
                "no:cacheprovider",
                f"--junitxml={report}.xml",
                "tests",
            ],
            cwd=ROOT,
        ).returncode
        passed, failed = junit_counts(Path(f"{report}.xml"))
        totals["passed"] += passed
        totals["failed"] += failed
        # Exit 5 (no tests collected) is a failure too: a tier that cannot run must say so.
        if rc != 0 or passed == 0:
            failed_tiers.append(f"{tier} (pytest exit {rc}, {passed} passed)")
    if failed_tiers:
        log("FAILED tiers: " + "; ".join(failed_tiers))
    print(f"tabgate: {totals['passed']} passed, {totals['failed']} failed")
    return 1 if failed_tiers else 0


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
