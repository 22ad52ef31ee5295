"""The activity log (contract §9 `agents/activity`): its entries, newest first, bounded, filtered by agent,
and what a stored log may bring back."""

from __future__ import annotations

import pytest

from core.calls.outcome import Outcome
from core.records.activity import ActivityLog, make_entry

pytestmark = pytest.mark.unit


def entry(n: int, agent_id: str = "a1", **extra: object) -> dict[str, object]:
    return make_entry(
        call_id=f"c{n}",
        at_s=1000 + n,
        ended_s=1000 + n + 0.25,
        agent_id=agent_id,
        agent=f"codex — /usr/bin/{agent_id}",
        tool="browser_tab",
        outcome=Outcome.DONE,
        **extra,  # type: ignore[arg-type]
    )


def test_an_entry_names_time_agent_tool_action_site_tab_outcome_and_duration() -> None:
    made = entry(1, action="activate", site="https://shop.example", tab_id=7)
    assert made == {
        "id": "c1",
        "at": 1_001_000,
        "agent": "codex — /usr/bin/a1",
        "agentId": "a1",
        "tool": "browser_tab",
        "action": "activate",
        "site": "https://shop.example",
        "tabId": 7,
        "outcome": "done",
        "ms": 250,
    }
    assert "action" not in entry(2) and "site" not in entry(2) and "tabId" not in entry(2)


def test_newest_first_filtered_by_agent_and_limited() -> None:
    log = ActivityLog()
    for n in range(5):
        log.add(entry(n, "a1" if n % 2 else "a2"))
    assert [e["id"] for e in log.entries()] == ["c4", "c3", "c2", "c1", "c0"]
    assert [e["id"] for e in log.entries("a1")] == ["c3", "c1"]
    assert [e["id"] for e in log.entries(limit=2)] == ["c4", "c3"]
    assert log.entries("nobody") == []


def test_the_oldest_entries_are_dropped_past_the_count_and_the_size() -> None:
    counted = ActivityLog(max_entries=3)
    for n in range(10):
        counted.add(entry(n))
    assert [e["id"] for e in counted.entries()] == ["c9", "c8", "c7"]
    one = len(str(entry(0)).encode())
    sized = ActivityLog(max_bytes=one * 4)
    for n in range(10):
        sized.add(entry(n))
    kept = [e["id"] for e in sized.entries()]
    assert 2 <= len(kept) <= 4 and kept[0] == "c9" and sized.size <= one * 4


def test_a_field_from_the_agent_is_cut_and_the_bound_holds_for_large_entries() -> None:
    log = ActivityLog(max_entries=10, max_bytes=4096)
    for n in range(50):
        log.add(entry(n, site="x" * 10_000, action="y" * 10_000))
    assert log.size <= 4096 and all(len(e["site"]) <= 200 for e in log.entries())


def test_a_stored_log_comes_back_under_newer_entries_and_bad_stored_entries_are_ignored() -> None:
    log = ActivityLog(max_entries=4)
    log.add(entry(9))
    stored = [entry(3), {"id": "bad", "at": "x"}, entry(2), "junk", entry(1), entry(9)]
    log.load(stored)
    assert [e["id"] for e in log.entries()] == ["c9", "c3", "c2", "c1"]
    log.load("not a list")  # type: ignore[arg-type]
    assert len(log.entries()) == 4
