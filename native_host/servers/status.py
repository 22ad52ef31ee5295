"""The live status of every configured server, shared by the reader thread and the event loop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Literal, NotRequired, TypedDict

type Transport = Literal["stdio", "streamable_http", "sse"]
type State = Literal["starting", "ready", "restarting", "failed", "disabled"]
type Auth = Literal["required", "signingIn", "signedIn"]  # an OAuth server's sign-in


class ServerStatus(TypedDict):
    """Contract §4 `ServerStatus`; `tools` is the number of tools offered after the config's filters.

    `toolTimeoutSec`/`startupTimeoutSec` are the server's own limits, so the browser can wait as long as the
    host does; a `restarting` server says why (`error`), when the next start is due (`retryInMs`, absent while
    that start runs) and how many restarts there have been; a `failed` server's start cannot mend itself
    (failures.py): `error` says what to fix, and it has neither `retryInMs` nor `restarts`. `toolsVersion`
    counts the times a ready server's `list_changed` brought a different tool list (absent until the first),
    so a replaced tool changes the status too. `auth` is an OAuth server's sign-in: `required` (it waits for
    the person), `signingIn` (a sign-in page is open) or `signedIn`; `signInError` says why the person's last
    sign-in failed, while it still waits for one (`error` holds it too, or what the server said since)."""

    name: str
    transport: Transport
    status: State
    toolTimeoutSec: NotRequired[float]
    startupTimeoutSec: NotRequired[float]
    error: NotRequired[str]
    retryInMs: NotRequired[int]
    restarts: NotRequired[int]
    tools: NotRequired[int]
    toolsVersion: NotRequired[int]
    capabilities: NotRequired[dict[str, Any]]
    auth: NotRequired[Auth]
    scope: NotRequired[str]  # with `auth: "required"`: the scope the server asked for, when it named one
    signInError: NotRequired[str]


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
