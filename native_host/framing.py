"""Native-messaging frames: a 4-byte length in native byte order, then that many bytes of UTF-8 JSON."""

from __future__ import annotations

import queue
import struct
import threading
from collections.abc import Callable
from typing import BinaryIO, Final

HEADER: Final = struct.Struct("=I")  # "=": native byte order, standard 4-byte size
MAX_OUTGOING: Final = 1024 * 1024  # Chrome refuses host→browser messages over 1 MiB
MAX_INCOMING: Final = 64 * 1024 * 1024  # Chrome never sends more than 64 MiB


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
    """Writes frames for any thread, in order, from a thread of its own, so a slow reader never blocks the
    event loop. Each `send` is written contiguously, which keeps a response's `$/chunk` frames together."""

    def __init__(self, stream: BinaryIO, on_error: Callable[[OSError], None]) -> None:
        self._stream = stream
        self._on_error = on_error
        self._queue: queue.SimpleQueue[list[bytes] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="frame-writer", daemon=True)
        self._thread.start()

    def send(self, bodies: list[bytes]) -> None:
        self._queue.put([encode_frame(body) for body in bodies])

    def close(self, timeout: float) -> None:
        """Write what is queued (waiting at most `timeout` seconds), then stop."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        broken = False
        while (frames := self._queue.get()) is not None:
            if broken:
                continue  # the browser end is gone; keep draining so senders never block
            try:
                self._stream.write(b"".join(frames))
                self._stream.flush()
            except OSError as exc:
                broken = True
                self._on_error(exc)
