"""A server's log messages (MCP `notifications/message`): the last few, bounded, with secrets taken out."""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any, Final, NotRequired, TypedDict

from ..config.redact import Scrubber

MAX_ENTRIES: Final = 200
MAX_TEXT: Final = 2000  # characters of one message's data kept (and sent to the browser)


class LogEntry(TypedDict):
    """One message as `servers/logs` answers it: `data` is text (JSON text when the server sent a value)."""

    level: str
    logger: NotRequired[str]
    data: str
    at: int  # milliseconds since the epoch, when the host received it


def _text(data: Any) -> str:
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except ValueError:  # a value json cannot encode (NaN is fine; cycles are not possible from the wire)
        return repr(data)


class LogRing:
    """The last MAX_ENTRIES messages of one server, each scrubbed and cut to MAX_TEXT characters."""

    def __init__(self, scrub: Scrubber) -> None:
        self._scrub = scrub
        self._entries: deque[LogEntry] = deque(maxlen=MAX_ENTRIES)

    def add(self, level: str, logger: str | None, data: Any) -> LogEntry:
        # Scrub before cutting: a cut could leave part of a secret the scrubber no longer recognises.
        text = self._scrub(_text(data))
        if len(text) > MAX_TEXT:
            text = text[:MAX_TEXT] + "…"
        entry: LogEntry = {"level": level, "data": text, "at": int(time.time() * 1000)}
        if logger is not None:
            entry["logger"] = self._scrub(logger)[:MAX_TEXT]
        self._entries.append(entry)
        return entry

    def entries(self) -> list[LogEntry]:
        """Oldest first."""
        return list(self._entries)
