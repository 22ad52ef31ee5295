"""The official MCP conformance suite's client scenarios, run against a real host through the adapter in
conformance/client.py (native-messaging frames as the service worker speaks them; `oauth/authorize` answered
as chrome.identity would). One test per scenario the suite says a spec revision requires of a client
(`list --client --requirements REVISION`), for both revisions the host speaks, each run at its own wire
(`--spec-version REVISION`): 2025-11-25 (servers of the initialize era) and 2026-07-28 (stateless servers that
answer `server/discover`); plus the 2025-03-26 back-compat set. Each passes with no failed check and no
warning, and the suite's run ends with exit code 0.

Left out, as the suite leaves them out of its score: the scenarios it lists under "Run and reported, but never
scored". Among them the machine-to-machine grants it marks `[client]` (client credentials with a secret or a
JWT, workload identity, enterprise-managed authorization, DPoP): the host signs in on behalf of a person, in
the person's browser (contract §4), and holds no credentials of its own to present without one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.npm_packages import CONFORMANCE, NODE_22, installed

pytestmark = pytest.mark.host

ADAPTER = Path(__file__).parent / "conformance" / "client.py"
# (how the suite selects the scenarios, the revision): each set runs at that revision's wire.
SELECTIONS = (
    ("--requirements", "2025-11-25"),
    ("--requirements", "2026-07-28"),
    ("--spec-version", "2025-03-26"),
)
SUITE_MISSING = "(the conformance suite is not installed)"
# The suite's limit for one scenario's client: it starts two Python processes (the adapter, which runs
# `tabgate-host install` in itself, and the host), and the host imports the mcp SDK (~1 s of CPU, measured
# 12 s wall at load 10 on 2 cores); at 60 s, busy machines cut clients off before they called a tool or
# fetched metadata.
SCENARIO_SECONDS = 150


def client_scenarios() -> list[str]:
    """`WIRE/SCENARIO` for the client scenarios of SELECTIONS, as the suite lists them
    (`conformance list --client ...`)."""
    node, suite = NODE_22.path, CONFORMANCE.path
    if not (node.is_file() and suite.is_file()):
        return [SUITE_MISSING]  # its test fails, saying how to install the suite
    found: list[str] = []
    for option, version in SELECTIONS:
        listed = subprocess.run(
            [str(node), str(suite), "list", "--client", option, version],
            capture_output=True, text=True, timeout=60, check=True,
        ).stdout  # fmt: skip
        scenarios = listed.split("Client scenarios", 1)[-1].split("\n\n", 1)[0]
        found += [f"{version}/{name}" for name in re.findall(r"^  - (\S+)", scenarios, re.MULTILINE)]
    return found


def failed_checks(results: Path) -> list[dict[str, Any]]:
    [checks] = results.rglob("checks.json")
    return [c for c in json.loads(checks.read_text()) if c["status"] in ("FAILURE", "WARNING")]


@pytest.mark.parametrize("selected", client_scenarios())
def test_the_host_passes_the_conformance_client_scenario(selected: str, tmp_path: Path) -> None:
    node, suite = installed(NODE_22), installed(CONFORMANCE)
    assert selected != SUITE_MISSING
    wire, scenario = selected.split("/", 1)
    run = subprocess.run(
        [str(node), str(suite), "client", "--scenario", scenario, "--spec-version", wire,
         "--command", f"{sys.executable} {ADAPTER}", "--timeout", str(SCENARIO_SECONDS * 1000),
         "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=SCENARIO_SECONDS + 60,
    )  # fmt: skip
    failed = failed_checks(tmp_path)
    assert failed == [], "\n".join(f"{c['id']}: {c.get('errorMessage') or c['description']}" for c in failed)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
