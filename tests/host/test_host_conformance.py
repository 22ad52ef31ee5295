"""The official MCP conformance suite's client scenarios, run against a real host through the adapter in
conformance/client.py (native-messaging frames as the service worker speaks them; `oauth/authorize` answered
as chrome.identity would). One test per scenario the suite says the 2025-11-25 spec revision requires of a
client (`list --requirements 2025-11-25`: the wire the host speaks to servers of that era), and per scenario
of its 2025-03-26 back-compat set: each passes with no failed check and no warning, and the suite's run ends
with exit code 0.
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
SELECTIONS = (("--requirements", "2025-11-25"), ("--spec-version", "2025-03-26"))
SUITE_MISSING = "(the conformance suite is not installed)"
SCENARIO_SECONDS = 60


def client_scenarios() -> list[str]:
    """The client scenarios of SELECTIONS, as the suite lists them (`conformance list --client ...`)."""
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
        found += [name for name in re.findall(r"^  - (\S+)", scenarios, re.MULTILINE) if name not in found]
    return found


def failed_checks(results: Path) -> list[dict[str, Any]]:
    [checks] = results.rglob("checks.json")
    return [c for c in json.loads(checks.read_text()) if c["status"] in ("FAILURE", "WARNING")]


@pytest.mark.parametrize("scenario", client_scenarios())
def test_the_host_passes_the_conformance_client_scenario(scenario: str, tmp_path: Path) -> None:
    node, suite = installed(NODE_22), installed(CONFORMANCE)
    assert scenario != SUITE_MISSING
    run = subprocess.run(
        [str(node), str(suite), "client", "--scenario", scenario,
         "--command", f"{sys.executable} {ADAPTER}", "--timeout", str(SCENARIO_SECONDS * 1000),
         "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=SCENARIO_SECONDS + 60,
    )  # fmt: skip
    failed = failed_checks(tmp_path)
    assert failed == [], "\n".join(f"{c['id']}: {c.get('errorMessage') or c['description']}" for c in failed)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
