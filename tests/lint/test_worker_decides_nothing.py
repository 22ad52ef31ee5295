"""The service worker relays and calls chrome.*; the decisions it once made are Python's (issue 26, Deliver
3). Each moved decision has a fingerprint here: finding one back in extension/worker/ fails, naming the file
and line, so a decision does not creep back into JavaScript."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

WORKER = Path(__file__).resolve().parents[2] / "extension" / "worker"

MOVED = {
    # which pages' sites are compared by origin, which grants are asked (core/calls/tab_scope.py Guard)
    "a URL scheme rule": re.compile(r"https\?|\^https?:|startsWith\(\s*[\"']https?:"),
    # how often a wait on a tab polls it (core/browser/navigation.py TIMING)
    "the tab poll interval": re.compile(r"TAB_POLL|setInterval\([^,]+,\s*\d"),
}


def _code(line: str) -> str:
    return line.split("//", 1)[0]


@pytest.mark.parametrize("decision", sorted(MOVED))
def test_the_worker_does_not_decide(decision: str) -> None:
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(WORKER.glob("*.js"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if MOVED[decision].search(_code(line))
    ]
    assert not found, f"{decision} is Python's, not the worker's:\n" + "\n".join(found)
