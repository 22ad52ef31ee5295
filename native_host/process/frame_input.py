"""The browser's frames read on the event loop once it runs: a request then reaches its handler without a hop
from the reader thread (one wake-up and one GIL hand-over less per call; docs/benchmarks.md)."""

from __future__ import annotations

import enum
import logging
import os
from collections.abc import Callable
from typing import Final

import anyio

from .framing import FrameSplitter, FramingError
from .outbox import Outbox

log = logging.getLogger(__name__)

READ_SIZE: Final = 1024 * 1024


class InputEnd(enum.Enum):
    CLOSED = "the browser closed the connection"
    BROKEN = "the input stopped being frames, or cannot be read"


async def read_frames(fd: int, handle: Callable[[bytes], None], outbox: Outbox) -> InputEnd:
    """Hand each frame of `fd` to `handle` until the input ends; no new frame is read while the browser has
    not read the host's output (the bound `Outbox.wait_for_room` keeps)."""
    splitter = FrameSplitter()
    while True:
        if not outbox.has_room():
            await anyio.to_thread.run_sync(outbox.wait_for_room, abandon_on_cancel=True)
        await anyio.wait_readable(fd)
        try:
            data = os.read(fd, READ_SIZE)
        except OSError as exc:
            log.error("stopping: cannot read from the browser: %s", exc)
            return InputEnd.BROKEN
        try:
            if not data:
                splitter.end()
                log.info("the browser closed the connection")
                return InputEnd.CLOSED
            frames = splitter.feed(data)
        except FramingError as exc:
            log.error("stopping: %s", exc)
            return InputEnd.BROKEN
        for body in frames:
            handle(body)
