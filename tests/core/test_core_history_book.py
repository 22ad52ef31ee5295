"""What the call history keeps (core/records/history_book.py): the newest 100 entries within 5 MiB, the entry
that
changed never evicted for itself, a call's arguments kept up to 64 KiB, what a refused write keeps, and the
calls a stopped worker left running."""

from __future__ import annotations

from typing import Any

import pytest

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.messages.runtime_messages import parse_runtime_message
from core.records.history_book import INTERRUPTED_NOTE, MAX_BYTES, MAX_ITEM_BYTES, NOT_KEPT_NOTE, HistoryBook

pytestmark = pytest.mark.unit


def meta(entry_id: str, size: int = 100, status: str = "done", item_bytes: int = 10) -> dict[str, Any]:
    return {"id": entry_id, "status": status, "bytes": size, "itemBytes": item_bytes, "startedAt": 1}


def changed(book: HistoryBook, entry: dict[str, Any]) -> dict[str, Any]:
    return book.changed(parse_runtime_message({"type": "history/changed", "metas": [entry]}))


def test_the_101st_entry_evicts_the_oldest() -> None:
    book = HistoryBook()
    evicted = [changed(book, meta(f"e{n}"))["evict"] for n in range(101)]
    assert evicted[:100] == [[]] * 100
    assert evicted[100] == ["e0"]


def test_past_5_mib_the_oldest_go_until_the_rest_fits() -> None:
    book = HistoryBook()
    mib = 1024 * 1024
    for n in range(3):
        assert changed(book, meta(f"e{n}", size=mib * 3 // 2))["evict"] == []
    assert 5 * mib == MAX_BYTES
    assert changed(book, meta("big", size=3 * mib))["evict"] == ["e0", "e1"]


def test_the_entry_that_changed_stays_even_alone_over_the_bound() -> None:
    book = HistoryBook()
    changed(book, meta("old"))
    assert changed(book, meta("huge", size=MAX_BYTES + 1))["evict"] == ["old"]


def test_an_entry_that_changes_again_moves_to_the_front_and_counts_once() -> None:
    book = HistoryBook()
    for n in range(100):
        changed(book, meta(f"e{n}"))
    assert changed(book, meta("e0", status="done"))["evict"] == []
    assert changed(book, meta("new"))["evict"] == ["e1"]


def test_arguments_over_64_kib_are_replaced_by_a_note_naming_their_size() -> None:
    book = HistoryBook()
    assert changed(book, meta("a", item_bytes=MAX_ITEM_BYTES))["dropItems"] == {}
    dropped = changed(book, meta("b", item_bytes=MAX_ITEM_BYTES + 1))["dropItems"]
    assert dropped == {"b": f"The call's arguments ({MAX_ITEM_BYTES + 1} bytes) were too large to keep."}


def test_a_refused_write_keeps_the_outcome_without_the_answer_else_nothing() -> None:
    book = HistoryBook()
    changed(book, meta("a"))
    assert book.refused(parse_runtime_message({"type": "history/refused", "id": "a", "hasAnswer": True})) == {
        "keep": "withoutAnswer",
        "note": NOT_KEPT_NOTE,
    }
    assert book.refused(
        parse_runtime_message({"type": "history/refused", "id": "a", "hasAnswer": False})
    ) == {"keep": "nothing"}


def test_a_fresh_worker_finds_the_calls_the_stopped_one_left_running_interrupted() -> None:
    book = HistoryBook()
    index = [meta("r", status="running"), meta("d")]
    assert book.load(parse_runtime_message({"type": "history/load", "index": index, "fresh": True})) == {
        "interrupted": ["r"],
        "status": "interrupted",
        "note": INTERRUPTED_NOTE,
        "evict": [],
    }
    # A new Python document with the same worker: its running calls are running.
    assert (
        book.load(parse_runtime_message({"type": "history/load", "index": index, "fresh": False}))[
            "interrupted"
        ]
        == []
    )


def test_a_loaded_index_over_the_bounds_is_cut_from_the_oldest() -> None:
    index = [meta(f"e{n}") for n in range(102)]  # newest first
    assert HistoryBook().load(
        parse_runtime_message({"type": "history/load", "index": index, "fresh": False})
    )["evict"] == ["e101", "e100"]


def test_removed_entries_no_longer_count() -> None:
    book = HistoryBook()
    for n in range(100):
        changed(book, meta(f"e{n}"))
    book.removed(parse_runtime_message({"type": "history/removed", "ids": ["e5"]}))
    assert changed(book, meta("new"))["evict"] == []


@pytest.mark.parametrize(
    "message",
    [{"meta": {"id": 1, "status": "done", "bytes": 1}}, {"meta": {"id": "a", "status": "done"}}, {}],
)
def test_a_malformed_change_is_refused_naming_the_field(message: dict[str, Any]) -> None:
    with pytest.raises(McpRequestError) as refused:
        parse_runtime_message({"type": "history/changed", **message})
    assert refused.value.code == McpErrorCode.INVALID_PARAMS
    assert refused.value.message.startswith("history/changed: ")
