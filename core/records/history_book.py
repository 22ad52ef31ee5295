"""What the call history keeps (contract §5): at most 100 entries and 5 MiB, a call's own arguments up to
64 KiB, the oldest evicted first; what a refused write keeps; a call a stopped worker left running.

The service worker stores the entries (extension/worker/history.js: storage I/O, the in-memory copy, the
pushes to
pages); it tells Python each change's size here (`HistoryBook`) and does what the answer says. An entry's
answer is shortened before that, by `core.records.history.record_for`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.calls.outcome import Outcome
from core.messages.runtime_messages import HistoryChanged, HistoryLoad, HistoryRefused, HistoryRemoved

MAX_ENTRIES = 100
MAX_BYTES = 5 * 1024 * 1024
# A call's own arguments are kept so the popup can fill its form again; past this size only their size is.
MAX_ITEM_BYTES = 64 * 1024
INTERRUPTED_NOTE = (
    "The service worker stopped while this call ran, so its outcome is unknown: it may have finished or "
    "not. Check what the tool does before running it again."
)
NOT_KEPT_NOTE = "The answer was not kept: the extension's session storage is full."


@dataclass(slots=True)
class _Entry:
    id: str
    bytes: int


class HistoryBook:
    """The history's index as Python sees it, newest first, and every decision about what stays."""

    def __init__(self) -> None:
        self._index: list[_Entry] = []

    def load(self, load: HistoryLoad) -> dict[str, Any]:
        """`history/load {index, fresh}`: the worker's index. A fresh worker's (`fresh`) entries still
        `running` were left by the stopped one: they end with `status` (the outcome `interrupted`) and the
        note."""
        self._index = [_Entry(meta.id, meta.bytes) for meta in load.index]
        running = [meta.id for meta in load.index if meta.status == "running"] if load.fresh else []
        return {
            "interrupted": running,
            "status": Outcome.INTERRUPTED.value,
            "note": INTERRUPTED_NOTE,
            "evict": self._evict(None),
        }

    def changed(self, message: HistoryChanged) -> dict[str, Any]:
        """`history/changed {metas}` (the changes since the last, oldest first; the worker batches them like
        its writes) → `{evict, dropItems}`: after each change the oldest entries past the bounds go (never
        the one that changed); `dropItems` maps a kept entry whose call's arguments are too large to the note
        to keep instead."""
        evicted: list[str] = []
        too_large: dict[str, str] = {}
        for meta in message.metas:
            self._index = [entry for entry in self._index if entry.id != meta.id]
            self._index.insert(0, _Entry(meta.id, meta.bytes))
            evicted += self._evict(meta.id)
            if meta.itemBytes > MAX_ITEM_BYTES:
                too_large[meta.id] = f"The call's arguments ({meta.itemBytes} bytes) were too large to keep."
        kept = {entry.id for entry in self._index}
        drops = {key: note for key, note in too_large.items() if key in kept}
        return {"evict": [key for key in evicted if key not in kept], "dropItems": drops}

    def refused(self, refused: HistoryRefused) -> dict[str, Any]:
        """`history/refused {id, hasAnswer}`: the storage refused the entry alone. Kept without its answer
        (with a note) when it has one, else dropped: nothing is left `running` for lack of room."""
        if refused.hasAnswer:
            return {"keep": "withoutAnswer", "note": NOT_KEPT_NOTE}
        self._forget({refused.id})
        return {"keep": "nothing"}

    def removed(self, message: HistoryRemoved) -> dict[str, Any]:
        """`history/removed {ids}`: entries the worker took out (cleared, dropped)."""
        self._forget(set(message.ids))
        return {"ok": True}

    def _forget(self, ids: set[str]) -> None:
        self._index = [entry for entry in self._index if entry.id not in ids]

    def _evict(self, keep: str | None) -> list[str]:
        total = sum(entry.bytes for entry in self._index)
        evicted: list[str] = []
        for entry in reversed(list(self._index)):
            if len(self._index) <= MAX_ENTRIES and total <= MAX_BYTES:
                break
            if entry.id == keep:
                continue
            self._index.remove(entry)
            total -= entry.bytes
            evicted.append(entry.id)
        return evicted
