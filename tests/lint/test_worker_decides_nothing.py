"""The service worker relays and calls chrome.*; the decisions it once made are Python's (issue 26, Deliver
3). Each moved decision has a fingerprint here: finding one back in extension/worker/ fails, naming the file
and line, so a decision does not creep back into JavaScript. So does a fixed wait: every timer's delay and
every `*_MS` constant comes from the generated `worker_timings.js` (core/runtime/worker_timings.py), the one
place a timing number may stand (it is written into dist/extension, not kept in extension/worker/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

EXTENSION = Path(__file__).resolve().parents[2] / "extension"
WORKER = EXTENSION / "worker"

MOVED = {
    # which pages' sites are compared by origin, which grants are asked (core/calls/tab_scope.py Guard)
    "a URL scheme rule": re.compile(r"https\?|\^https?:|startsWith\(\s*[\"']https?:"),
    # how often a wait on a tab polls it (core/browser/navigation.py TIMING)
    "the tab poll interval": re.compile(r"TAB_POLL|setInterval\([^,]+,\s*\d"),
    # the tools' namespace in chrome.storage (core/browser/storage.py TOOL_STORAGE_PREFIX)
    "the tool storage namespace": re.compile(r"STORAGE_PREFIX|[\"'`]tool:"),
    # a call's time limit, always sent by Python (core/browser/tool_spec.py), never a default of the worker's
    "a default time limit": re.compile(r"\b\w*[tT]imeout\w*\s*=\s*\d"),
    # which actions a tool has: an action Python did not declare has no executor (core/browser/actions.py)
    "an unknown-action answer": re.compile(r"unknown action"),
    # which of the call's fields chrome.* is given (core/browser/tab.py sends exactly chrome.tabs' options)
    "a field list for chrome.*": re.compile(r"\bpick\(|\.filter\(\(k\) => a\[k\]"),
    # what Chrome's disconnect messages mean (core/host_link/port_states.py CHROME_SAYS)
    "Chrome's words for the host port": re.compile(r"native messaging host|Native host has exited"),
    # how long a host that keeps exiting waits before it starts again (port_states.py restart_delays_ms)
    "the host's restart backoff": re.compile(r"HOST_RESTART_M(?:IN|AX)_MS|Delay\s*\*\s*2"),
    # what a tab tool answers of a tab: which URL it shows, where it is going (core/calls/chrome_tab.py)
    "a tab answer's shape": re.compile(r"pendingUrl\s*(?:!==|===|&&)"),
    # whether a page read was cut, and where (core/browser/page_reads.py: by Python's characters)
    "a page read's cut": re.compile(r"\.length\s*>\s*max\w*"),
    # how a debugger session is set up and which loads are held (core/browser/debugger_setup.py)
    "the debugger's set-up": re.compile(
        r"[\"'](?:Page|Runtime|Log|Network)\.enable|[\"']Fetch\.(?:en|dis)able|\"1\.3\""
    ),
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


# A delay written as a number, or arithmetic of numbers (`10 * 60 * 1000`, `10_000`).
NUMBER = re.compile(r"[\d_.\s*+()]*\d[\d_.\s*+()]*")
# A `*_MS` constant given a number (`const WRITE_DELAY_MS = 50`, `CALL_TIMEOUT_MS = 10 * 60 * 1000`).
MS_NUMBER = re.compile(r"\b[A-Z0-9_]*_MS\s*=(?!=)\s*\(?\d[\d_ *+]*")
TIMER = re.compile(r"\bset(?:Timeout|Interval)\(")
COMMENT = re.compile(r"/\*.*?\*/|(?<!:)//[^\n]*", re.DOTALL)
CLOSE = {")": "(", "]": "[", "}": "{"}


def _delay(code: str, start: int) -> str | None:
    """The last argument of the timer call whose arguments begin at `start` (None: no delay given)."""
    depth, quote, last_comma, i = 0, "", None, start
    while i < len(code):
        ch = code[i]
        if quote:
            i += 2 if ch == "\\" else 1
            quote = "" if ch == quote else quote
            continue
        if ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in CLOSE:
            if depth == 0:
                return code[last_comma + 1 : i].strip() if last_comma is not None else None
            depth -= 1
        elif ch == "," and depth == 0:
            last_comma = i
        i += 1
    return None


def _timing_numbers(path: Path) -> list[str]:
    code = COMMENT.sub("", path.read_text())

    def where(at: int) -> str:
        return f"{path.name}:{code.count(chr(10), 0, at) + 1}"

    found = [f"{where(m.start())}: {m.group()}" for m in MS_NUMBER.finditer(code)]
    for m in TIMER.finditer(code):
        delay = _delay(code, m.end())
        if delay is not None and NUMBER.fullmatch(delay):
            found.append(f"{where(m.start())}: {m.group()}… {delay}")
    return found


@pytest.mark.parametrize(
    ("folder", "table"), [("worker", "core/runtime/worker_timings.py"), ("ui", "core/runtime/ui_timings.py")]
)
def test_no_script_sets_a_timing_of_its_own(folder: str, table: str) -> None:
    """A number as a timer's delay or a `*_MS` value in extension/worker/ or extension/ui/ fails; the names of
    Python's timing tables (`WorkerTiming.NAME`, `UiTiming.NAME`) or a value Python sent with the request
    pass."""
    found = [hit for path in sorted((EXTENSION / folder).glob("*.js")) for hit in _timing_numbers(path)]
    listing = "\n".join(found)
    assert not found, f"fixed waits in extension/{folder}/ are {table}'s:\n{listing}"
