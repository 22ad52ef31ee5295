"""The live status of every configured server (contract §4 `ServerStatus`, defined with the core's view of the
host in `core.calls.capabilities`), shared by the reader thread and the event loop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from core.calls.capabilities import ServerStatus


class StatusBoard:
    """Holds the statuses and publishes every change.

    `publish` runs under the board's lock, and so does `answer_with`: a reply built from a snapshot is
    queued before any later change's notification, so the browser always ends with the latest state."""

    def __init__(self, publish: Callable[[list[ServerStatus]], None]) -> None:
        self._lock = threading.Lock()
        self._statuses: dict[str, ServerStatus] = {}
        self._publish = publish

    def snapshot(self) -> list[ServerStatus]:
        with self._lock:
            return self._sorted()

    def answer_with(self, reply: Callable[[list[ServerStatus]], None]) -> None:
        with self._lock:
            reply(self._sorted())

    def replace(self, statuses: Iterable[ServerStatus], *, publish: bool = True) -> None:
        with self._lock:
            new = {status["name"]: status for status in statuses}
            if new == self._statuses:
                return
            self._statuses = new
            if publish:
                self._publish(self._sorted())

    def set(self, status: ServerStatus) -> None:
        with self._lock:
            if self._statuses.get(status["name"]) == status:
                return
            self._statuses[status["name"]] = status
            self._publish(self._sorted())

    def _sorted(self) -> list[ServerStatus]:
        return [self._statuses[name] for name in sorted(self._statuses)]
