"""Native-messaging frames: a 4-byte length in native byte order, then that many bytes of UTF-8 JSON."""

from __future__ import annotations

import collections
import os
import select
import struct
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO, Final

HEADER: Final = struct.Struct("=I")  # "=": native byte order, standard 4-byte size
MAX_OUTGOING: Final = 1024 * 1024  # Chrome refuses host→browser messages over 1 MiB
MAX_INCOMING: Final = 64 * 1024 * 1024  # Chrome never sends more than 64 MiB
MAX_UNREAD: Final = 64 * 1024 * 1024  # contract §4: output the browser has not read yet


class FramingError(Exception):
    """The byte stream cannot be read as frames any more; the only safe reaction is to stop."""


def encode_frame(body: bytes) -> bytes:
    if len(body) > MAX_OUTGOING:
        raise FramingError(f"frame of {len(body)} bytes exceeds the {MAX_OUTGOING}-byte limit")
    return HEADER.pack(len(body)) + body


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame body, or None on a clean end of input (EOF exactly between frames)."""
    header = stream.read(HEADER.size)
    if not header:
        return None
    if len(header) < HEADER.size:
        raise FramingError(f"input ended inside a length prefix ({len(header)} of {HEADER.size} bytes)")
    (length,) = HEADER.unpack(header)
    if length > MAX_INCOMING:
        raise FramingError(f"frame length {length} exceeds the {MAX_INCOMING}-byte limit")
    body = stream.read(length)
    if len(body) < length:
        raise FramingError(f"input ended inside a frame ({len(body)} of {length} bytes)")
    return body


class FrameWriter:
    """Writes frames for any thread, in order, holding at most `limit` bytes the browser has not read yet.
    Past that, `send` waits until the browser reads (so the host's memory stays bounded and nothing is
    dropped) and `wait_for_room` tells the reader to stop taking new requests. Each `send` is written
    contiguously, which keeps a response's `$/chunk` frames together.

    An answer sent while nothing is queued is written at once by the sending thread, without blocking (the
    output is non-blocking): a hop to the writer thread was a measurable part of each `tools/call`
    (docs/benchmarks.md). What the pipe does not take at once, and everything sent behind it, goes to the
    writer thread, which waits for the browser to read; so a stalled browser never blocks a sender that has
    room. On Windows (no `select` on pipes) every frame goes through the writer thread."""

    def __init__(
        self, stream: BinaryIO, on_error: Callable[[OSError], None], limit: int = MAX_UNREAD
    ) -> None:
        self._stream = stream  # kept open; written through its descriptor
        self._fd = stream.fileno()
        self._direct = sys.platform != "win32"
        if self._direct:
            os.set_blocking(self._fd, False)
        self._on_error = on_error
        self._limit = limit
        self._changed = threading.Condition()
        self._queue: collections.deque[list[bytes] | None] = collections.deque()
        self._unread = 0  # bytes queued or being written by the writer thread
        self._waiting = 0  # senders waiting for room
        self._broken = False  # the browser end is gone: frames are dropped, nobody waits
        self._released = False  # the host is stopping: senders no longer wait for room
        self._thread = threading.Thread(target=self._run, name="frame-writer", daemon=True)
        self._thread.start()

    @property
    def unread(self) -> int:
        with self._changed:
            return self._unread

    def send(self, bodies: list[bytes]) -> None:
        """Queue one message's frames; waits while the queue is full (a message always fits an empty one)."""
        frames = [encode_frame(body) for body in bodies]
        size = sum(len(frame) for frame in frames)
        with self._changed:
            if self._direct and len(frames) == 1 and not self._unread and not self._broken:
                frames = self._write_now(frames[0])
                if not frames:
                    return
                size = len(frames[0])
            self._waiting += 1
            self._changed.wait_for(
                lambda: self._free() or not self._unread or self._unread + size <= self._limit
            )
            self._waiting -= 1
            if not self._broken:
                self._queue.append(frames)
                self._unread += size
            self._changed.notify_all()

    def wait_for_room(self) -> None:
        """Block while the browser has `limit` bytes to read, or a sender is waiting for room."""
        with self._changed:
            self._changed.wait_for(lambda: self._free() or (self._unread < self._limit and not self._waiting))

    def release(self) -> None:
        """The host is stopping: from now on nobody waits for the browser to read."""
        with self._changed:
            self._released = True
            self._changed.notify_all()

    def close(self, timeout: float) -> None:
        """Write what is queued (waiting at most `timeout` seconds), then stop."""
        self.release()
        with self._changed:
            self._queue.append(None)
            self._changed.notify_all()
        self._thread.join(timeout)

    def _free(self) -> bool:
        return self._broken or self._released

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._queue))
                frames = self._queue.popleft()
            if frames is None:
                return
            if not self._broken:
                try:
                    for frame in frames:
                        self._write_all(frame)
                except OSError as exc:
                    with self._changed:
                        self._broken = True
                    self._on_error(exc)
            with self._changed:
                self._unread -= sum(len(frame) for frame in frames)
                if self._broken:  # drop the rest so the memory goes too
                    self._unread -= sum(len(frame) for queued in self._queue if queued for frame in queued)
                    self._queue = collections.deque(item for item in self._queue if item is None)
                self._changed.notify_all()

    def _write_now(self, frame: bytes) -> list[bytes]:
        """Write what the output takes now (the writer thread is idle); the rest, for the writer thread."""
        try:
            written = _write_some(self._fd, frame)
        except OSError as exc:
            self._broken = True
            self._changed.notify_all()
            self._on_error(exc)
            return []
        return [frame[written:]] if written < len(frame) else []

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = _write_some(self._fd, view)
            view = view[written:]
            if view:  # the browser has not read yet: wait until the pipe takes more
                select.select([], [self._fd], [])


def _write_some(fd: int, data: bytes | memoryview) -> int:
    """As much of `data` as the output takes now (all of it when the output blocks)."""
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0
