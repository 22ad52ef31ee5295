"""The official MCP conformance suite's client scenarios, run against a real host through the adapter in
conformance/client.py (native-messaging frames as the service worker speaks them; `oauth/authorize` answered
as chrome.identity would). One test per scenario of the suite's own list, except those it tags only `draft`
or `extension` (the suite leaves them out of its own scoring too): each passes with no failed check and no
warning, and the suite's run ends with exit code 0.
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
NOT_SCORED = {"draft", "extension"}
SUITE_MISSING = "(the conformance suite is not installed)"
SCENARIO_SECONDS = 60


def client_scenarios() -> list[str]:
    """The suite's client scenarios with a spec version it scores, read from `conformance list`."""
    node, suite = NODE_22.path, CONFORMANCE.path
    if not (node.is_file() and suite.is_file()):
        return [SUITE_MISSING]  # its test fails, saying how to install the suite
    listed = subprocess.run(
        [str(node), str(suite), "list", "--client"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    found = re.findall(r"^\s+- (\S+) \[([^\]]*)\]", listed, re.MULTILINE)
    return [name for name, versions in found if set(versions.split(",")) - NOT_SCORED]


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
