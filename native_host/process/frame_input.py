"""The browser's frames in: the main thread reads them until the event loop runs (so `initialize` and `ping`
are answered while mcp imports), then the loop reads them itself (`add_reader`), so a request starts in the
turn its frame is read, without waking a second thread (docs/benchmarks.md, "The host's hot path")."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import select
import sys
import threading
from collections.abc import Callable
from typing import Final, Protocol

from .framing import FrameReader, FramingError

log = logging.getLogger(__name__)

READ_SIZE: Final = 256 * 1024  # one read takes what the pipe holds (64 KiB on Linux) and more when it can
# Windows pipes cannot be watched by select or an event loop's reader: there the main thread reads throughout.
HAND_OVER: Final = sys.platform != "win32"


class InputEnd(enum.Enum):
    CLOSED = "the browser closed the connection"  # end of input between frames
    BROKEN = "the input stopped being frames"  # or could not be read


class Room(Protocol):
    """Backpressure: no new requests are read while the browser has too much unread (the Outbox)."""

    def wait_for_room(self) -> None: ...

    def has_room(self) -> bool: ...


class FrameInput:
    """Reads frames from `fd` and hands each body to `handle` (which must not raise), on whichever thread
    reads: the main thread in `serve`, and the event loop's thread once `lend` has handed the input over.
    The hand-over happens between two reads and keeps the FrameReader, so no byte read ahead is lost."""

    def __init__(self, fd: int, handle: Callable[[bytes], None], room: Room) -> None:
        self._fd = fd
        self._handle = handle
        self._room = room
        self._frames = FrameReader()
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop that reads, or wants to
        self._end: InputEnd | None = None
        self._done = False  # `serve` has returned: nothing is handed over any more
        self._wake = os.pipe() if HAND_OVER else None  # `lend` wakes the main thread out of its select

    def serve(self) -> InputEnd:
        """Read until the input ends (on this thread, or on the loop's while it has the input)."""
        try:
            while True:
                if (end := self._read_here()) is not None:
                    return end
                with self._changed:  # the loop reads now: wait for the end, or for the input back
                    self._changed.wait_for(lambda: self._end is not None or self._loop is None)
                    if self._end is not None:
                        return self._end
        finally:
            with self._changed:
                self._done = True
                if self._wake is not None:
                    for fd in self._wake:
                        os.close(fd)

    def lend(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called on the running loop: it reads the frames from now on (the main thread hands over)."""
        with self._changed:
            if self._done or self._wake is None:
                return
            self._loop = loop
            os.write(self._wake[1], b"\0")

    def take_back(self) -> None:
        """The loop has stopped (or failed): the main thread reads again, from where the loop stopped."""
        with self._changed:
            self._loop = None
            self._changed.notify_all()

    def _read_here(self) -> InputEnd | None:
        """Read on the main thread until the input ends (its end) or the loop takes it (None)."""
        while True:
            self._room.wait_for_room()
            if self._wake is not None:
                ready, _, _ = select.select([self._fd, self._wake[0]], [], [])
                if self._wake[0] in ready:
                    os.read(self._wake[0], 1)
                    if self._hand_over():
                        return None
                if self._fd not in ready:
                    continue
            if (end := self._read_once()) is not None:
                return end

    def _hand_over(self) -> bool:
        with self._changed:
            loop = self._loop
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(self._attach, loop)
        except RuntimeError:  # the loop closed meanwhile: keep reading here
            return False
        return True

    def _read_once(self) -> InputEnd | None:
        try:
            data = os.read(self._fd, READ_SIZE)
        except OSError as exc:
            log.error("stopping: cannot read from the browser: %s", exc)
            return InputEnd.BROKEN
        try:
            if not data:
                self._frames.end()
                log.info("the browser closed the connection")
                return InputEnd.CLOSED
            for body in self._frames.feed(data):
                self._handle(body)
        except FramingError as exc:
            log.error("stopping: %s", exc)
            return InputEnd.BROKEN
        return None

    # ---- on the loop's thread

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.add_reader(self._fd, self._readable, loop)

    def _readable(self, loop: asyncio.AbstractEventLoop) -> None:
        end = self._read_once()
        if end is not None:
            loop.remove_reader(self._fd)
            with self._changed:
                self._end = end
                self._changed.notify_all()
        elif not self._room.has_room():  # backpressure: read again once the browser has read
            loop.remove_reader(self._fd)
            waiter = threading.Thread(target=self._attach_with_room, args=(loop,), daemon=True)
            waiter.start()

    def _attach_with_room(self, loop: asyncio.AbstractEventLoop) -> None:
        self._room.wait_for_room()  # released when the host stops, so this thread always ends
        with contextlib.suppress(RuntimeError):  # the loop has closed: `take_back` gave the input back
            loop.call_soon_threadsafe(self._attach, loop)
