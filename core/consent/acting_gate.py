"""The last check before an agent's acting call reaches the page (§8.2: the person's controls hold).

A call approved before the person paused agents may still be on its way: between its consent and the page lie
tab look-ups and the element's location. The gateway runs each acting call inside `acting(stop)`, and every
request the browser executors send checks `stop` right before it goes (`check_acting`), so a pause stops the
call at its next step instead of letting it reach the page. The context variable follows the call's own task
(and tasks started from it), so reading calls and the person's own calls are never affected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from core.calls.errors import RespondToModel

type Stop = Callable[[], str | None]  # why the call may no longer act, or None

_STOP: ContextVar[Stop | None] = ContextVar("tabgate_acting_stop", default=None)


@contextmanager
def acting(stop: Stop) -> Iterator[None]:
    """Run an agent's acting call under `stop`, asked again before each request to the executor."""
    token = _STOP.set(stop)
    try:
        yield
    finally:
        _STOP.reset(token)


def check_acting() -> None:
    """Right before a request goes to the executor: RespondToModel when the call may no longer act."""
    stop = _STOP.get()
    reason = stop() if stop is not None else None
    if reason is not None:
        raise RespondToModel(reason)
