"""Waiting in the e2e tests for what the chain does on its own time (a server restarting, a call ending in
another page), and reading the service worker's history as the popup does."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import Extension


def wait_for(
    predicate: Callable[[], Any], what: str, timeout_s: float = SERVERS_UP_S, every_s: float = 0.1
) -> Any:
    """Poll until `predicate()` is truthy and return it; fail naming `what` after `timeout_s` (by default the
    longest of the chain's usual steps: the host back and its servers ready, `bounds`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(every_s)


def history(ext: Extension, **query: Any) -> list[dict[str, Any]]:
    """The service worker's history as the popup reads it (`limit`, `since` as in the runtime API)."""
    entries: list[dict[str, Any]] = ext.send({"type": "history", **query})
    return entries


def history_entry(ext: Extension, call_id: str) -> dict[str, Any] | None:
    """The history entry of the call the model named `call_id` (None while there is none)."""
    return next((e for e in history(ext) if e["id"] == call_id), None)


# How extension/worker/history.js keys a call's entry in chrome.storage.session.
HISTORY_KEY = "history:"


def stored_running(ext: Extension, call_id: str) -> dict[str, Any]:
    """The call's entry once it is in `chrome.storage.session` as `running` (a start is written with the
    history's next batched write, `history_write_delay_ms` after it): what a worker that stops now leaves."""
    key = HISTORY_KEY + call_id

    def stored() -> dict[str, Any] | None:
        entry: dict[str, Any] | None = ext.page.evaluate(
            "k => chrome.storage.session.get(k).then(s => s[k])", key
        )
        return entry if entry and entry["status"] == "running" else None

    found: dict[str, Any] = wait_for(stored, f"{call_id}'s start to be stored", timeout_s=10)
    return found


def history_stored(ext: Extension) -> None:
    """Wait until every call in the history is in `chrome.storage.session` (entries are written in batches,
    `history_write_delay_ms` behind the calls): what a count of the stored keys can be compared against."""

    def stored() -> bool:
        ids = {entry["id"] for entry in history(ext)}
        keys = ext.page.evaluate("chrome.storage.session.get(null).then(Object.keys)")
        return ids <= {key.removeprefix(HISTORY_KEY) for key in keys}

    wait_for(stored, "the history's entries to be stored", timeout_s=10)
