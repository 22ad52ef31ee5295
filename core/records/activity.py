"""What agents did (contract §9 `agents/activity`): one entry per agent call, newest first, bounded.

An entry is made when a gateway call ends: when it started (`at`, ms), the agent (`name — executable` and its
id), the tool, its action, the site and tab it acted on, its outcome and how long it took (`ms`). The outcome
is the call's one `core.calls.outcome.Outcome`, the value history and the agent's answer read too. The log
keeps at most `MAX_ENTRIES` entries and `MAX_BYTES` of them (compact JSON), dropping the oldest. The service
worker keeps the same list in `chrome.storage.session` (one write each time it changes): it is sent each new
entry with how many entries to keep, and the whole list only after a load, and it hands the list back to a
new core.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from core.calls.outcome import Outcome

MAX_ENTRIES = 500
MAX_BYTES = 512 * 1024
# A field of an entry that comes from the agent (tool, action, site) is cut to this many characters.
MAX_FIELD = 200

type Entry = dict[str, Any]


def _text(value: object) -> str:
    return str(value)[:MAX_FIELD]


def make_entry(
    *,
    call_id: str,
    at_s: float,
    ended_s: float,
    agent_id: str,
    agent: str,
    tool: str,
    outcome: Outcome,
    action: str | None = None,
    site: str | None = None,
    tab_id: int | None = None,
) -> Entry:
    entry: Entry = {
        "id": _text(call_id),
        "at": round(at_s * 1000),
        "agent": _text(agent),
        "agentId": _text(agent_id),
        "tool": _text(tool),
        "outcome": outcome.value,
        "ms": max(0, round((ended_s - at_s) * 1000)),
    }
    if action is not None:
        entry["action"] = _text(action)
    if site is not None:
        entry["site"] = _text(site)
    if tab_id is not None:
        entry["tabId"] = tab_id
    return entry


def _size(entry: Entry) -> int:
    return len(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


_FIELDS = {"id": str, "at": int, "agent": str, "agentId": str, "tool": str, "outcome": str, "ms": int}
_OPTIONAL = {"action": str, "site": str, "tabId": int}


def _valid(entry: object) -> bool:
    """An entry as this module makes them (what the storage hands back is checked, never trusted)."""
    if not isinstance(entry, dict):
        return False
    for key, kind in _FIELDS.items():
        if type(entry.get(key)) is not kind:
            return False
    for key, kind in _OPTIONAL.items():
        if key in entry and type(entry[key]) is not kind:
            return False
    return entry["outcome"] in Outcome.__members__.values() and set(entry) <= set(_FIELDS) | set(_OPTIONAL)


class ActivityLog:
    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self._entries: deque[tuple[Entry, int]] = deque()  # oldest first, with each entry's size
        self._bytes = 0

    def add(self, entry: Entry) -> None:
        size = _size(entry)
        self._entries.append((entry, size))
        self._bytes += size
        while self._entries and (len(self._entries) > self._max_entries or self._bytes > self._max_bytes):
            _, dropped = self._entries.popleft()
            self._bytes -= dropped

    def load(self, stored: Iterable[object]) -> None:
        """Entries a stopped core left (newest first, as stored), merged under the ones made since."""
        known = {entry["id"] for entry, _ in self._entries}
        mine = [entry for entry, _ in self._entries]
        older = [entry for entry in stored if _valid(entry) and entry["id"] not in known]  # type: ignore[index]
        self._entries.clear()
        self._bytes = 0
        for entry in [*reversed(older), *mine]:
            self.add(entry)  # type: ignore[arg-type]

    def entries(self, agent_id: str | None = None, limit: int | None = None) -> list[Entry]:
        """Newest first; only one agent's when `agent_id` is given; at most `limit`."""
        found = [
            entry for entry, _ in reversed(self._entries) if agent_id is None or entry["agentId"] == agent_id
        ]
        return found if limit is None else found[: max(0, limit)]

    @property
    def count(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        return self._bytes
