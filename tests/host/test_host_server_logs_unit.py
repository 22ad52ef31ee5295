"""A server's kept log messages: bounded in number and size, secrets out, values as JSON text."""

from __future__ import annotations

import pytest

from native_host.config.redact import REDACTED, Scrubber
from native_host.servers.server_logs import MAX_ENTRIES, MAX_TEXT, LogRing

pytestmark = pytest.mark.unit

SECRET = "pw-0123456789"


def test_only_the_last_entries_are_kept_oldest_first() -> None:
    ring = LogRing(Scrubber())
    for index in range(MAX_ENTRIES + 5):
        ring.add("info", None, f"line {index}")
    entries = ring.entries()
    assert len(entries) == MAX_ENTRIES
    assert entries[0]["data"] == "line 5"
    assert entries[-1]["data"] == f"line {MAX_ENTRIES + 4}"
    assert "logger" not in entries[0]


def test_a_secret_is_taken_out_even_where_the_text_is_cut() -> None:
    ring = LogRing(Scrubber([SECRET]))
    # The secret straddles the cut: scrubbing after cutting would leave its first half behind.
    entry = ring.add("error", f"db {SECRET}", "x" * (MAX_TEXT - 4) + SECRET + "y" * 50)
    assert SECRET[:4] not in entry["data"]
    assert len(entry["data"]) == MAX_TEXT + 1
    assert entry["data"].endswith("…")
    assert entry["logger"] == f"db {REDACTED}"


def test_values_are_kept_as_json_text() -> None:
    entry = LogRing(Scrubber([SECRET])).add("debug", None, {"event": "login", "password": SECRET, "n": 2})
    assert entry["data"] == f'{{"event": "login", "password": "{REDACTED}", "n": 2}}'
    assert entry["at"] > 1_700_000_000_000
