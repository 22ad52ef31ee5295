"""The browser's frames in, without a host: frames cut out of pieces of any size, and the hand-over from the
main thread to an event loop (`add_reader`) that must lose no byte read ahead, on a real pipe and loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
import threading
from collections.abc import Iterator

import pytest

from native_host.process.frame_input import FrameInput, InputEnd
from native_host.process.framing import MAX_INCOMING, FrameReader, FramingError

pytestmark = pytest.mark.unit

WAIT_S = 10.0  # every wait here is for a thread on this machine; none should come near it
LEND = b"lend"


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def test_several_frames_in_one_piece_and_one_frame_over_many() -> None:
    reader = FrameReader()
    piece = frame(b"a") + frame(b"") + frame(b"ccc") + frame(b"dd")[:3]
    assert list(reader.feed(piece)) == [b"a", b"", b"ccc"]
    data = frame(b"dd")[3:] + frame(b"long body")
    assert [body for byte in data for body in reader.feed(bytes([byte]))] == [b"dd", b"long body"]
    reader.end()  # between frames: a clean end


def test_an_end_inside_a_prefix_or_a_body_is_an_error_naming_where() -> None:
    in_prefix = FrameReader()
    list(in_prefix.feed(b"\x05\x00"))
    with pytest.raises(FramingError, match="inside a length prefix"):
        in_prefix.end()
    in_body = FrameReader()
    list(in_body.feed(frame(b"0123456789")[:7]))
    with pytest.raises(FramingError, match=r"inside a frame \(3 of 10 bytes\)"):
        in_body.end()


def test_a_frame_ahead_of_a_length_past_the_bound_is_still_served() -> None:
    reader = FrameReader()
    served = []
    with pytest.raises(FramingError, match="exceeds"):
        for body in reader.feed(frame(b"first") + struct.pack("=I", MAX_INCOMING + 1)):
            served.append(body)
    assert served == [b"first"]


class Room:
    """The Outbox's backpressure, switchable: `full` makes readers stop until it is cleared."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.full = False

    def set_full(self, full: bool) -> None:
        with self._changed:
            self.full = full
            self._changed.notify_all()

    def wait_for_room(self) -> None:
        with self._changed:
            self._changed.wait_for(lambda: not self.full, WAIT_S)

    def has_room(self) -> bool:
        return not self.full


class Served:
    """The frames' handler. Serving the frame LEND lends the input to the loop right there (the main thread
    hands over before its next read): every byte written after that frame is served is the loop's to read."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._changed = threading.Condition()
        self.bodies: list[tuple[bytes, str]] = []  # each body and the thread that read it
        self.frames: FrameInput | None = None

    def __call__(self, body: bytes) -> None:
        if body == LEND and self.frames is not None:
            self.frames.lend(self._loop)
        with self._changed:
            self.bodies.append((body, threading.current_thread().name))
            self._changed.notify_all()

    def wait_count(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.bodies) >= count, WAIT_S), self.bodies


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, name="loop", daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(WAIT_S)
    running.close()


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):
            os.close(fd)


class Serving:
    """A FrameInput served by a thread named "main", as the host's main thread serves it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, read_end: int, room: Room | None = None) -> None:
        self.served = Served(loop)
        self.room = room or Room()
        self.frames = self.served.frames = FrameInput(read_end, self.served, self.room)
        self.ends: list[InputEnd] = []
        self._main = threading.Thread(target=lambda: self.ends.append(self.frames.serve()), name="main")
        self._main.start()

    def end(self) -> list[InputEnd]:
        self._main.join(WAIT_S)
        return self.ends


def test_the_hand_over_to_the_loop_loses_no_byte_read_ahead(
    loop: asyncio.AbstractEventLoop, pipe: tuple[int, int]
) -> None:
    read_end, write_end = pipe
    serving = Serving(loop, read_end)
    # Two frames and the start of a third in one write: the main thread reads them at once, and hands over.
    os.write(write_end, frame(b"one") + frame(LEND) + frame(b"three")[:5])
    serving.served.wait_count(2)
    # The rest of the third frame with a fourth whole, then a fifth split over two writes: the loop's to read.
    os.write(write_end, frame(b"three")[5:] + frame(b"four"))
    serving.served.wait_count(4)
    os.write(write_end, frame(b"five")[:2])
    os.write(write_end, frame(b"five")[2:])
    serving.served.wait_count(5)
    os.close(write_end)
    assert serving.end() == [InputEnd.CLOSED]
    assert serving.served.bodies == [
        (b"one", "main"),
        (LEND, "main"),
        (b"three", "loop"),
        (b"four", "loop"),
        (b"five", "loop"),
    ]


def test_an_end_inside_a_frame_after_the_hand_over_is_broken_input(
    loop: asyncio.AbstractEventLoop, pipe: tuple[int, int]
) -> None:
    read_end, write_end = pipe
    serving = Serving(loop, read_end)
    os.write(write_end, frame(LEND))
    serving.served.wait_count(1)
    os.write(write_end, frame(b"whole") + frame(b"cut short")[:6])
    serving.served.wait_count(2)
    os.close(write_end)
    assert serving.end() == [InputEnd.BROKEN]
    assert serving.served.bodies == [(LEND, "main"), (b"whole", "loop")]


def test_the_loop_stops_reading_while_the_browser_has_no_room_and_goes_on_after(
    loop: asyncio.AbstractEventLoop, pipe: tuple[int, int]
) -> None:
    read_end, write_end = pipe
    serving = Serving(loop, read_end)
    os.write(write_end, frame(LEND))
    serving.served.wait_count(1)
    serving.room.set_full(True)  # the loop serves what it is woken for, then stops reading
    os.write(write_end, frame(b"read before the stop"))
    serving.served.wait_count(2)
    os.write(write_end, frame(b"held"))
    # Three full turns of the loop later "held" is still unread.
    turned = threading.Event()
    for _ in range(3):
        turned.clear()
        loop.call_soon_threadsafe(turned.set)
        assert turned.wait(WAIT_S)
    assert [body for body, _ in serving.served.bodies] == [LEND, b"read before the stop"]
    serving.room.set_full(False)
    serving.served.wait_count(3)
    os.close(write_end)
    assert serving.end() == [InputEnd.CLOSED]
    assert serving.served.bodies[1:] == [(b"read before the stop", "loop"), (b"held", "loop")]


def test_a_loop_that_stops_gives_the_input_back_to_the_main_thread(
    loop: asyncio.AbstractEventLoop, pipe: tuple[int, int]
) -> None:
    read_end, write_end = pipe
    serving = Serving(loop, read_end)
    os.write(write_end, frame(LEND))
    serving.served.wait_count(1)
    os.write(write_end, frame(b"on the loop") + frame(b"half")[:3])
    serving.served.wait_count(2)
    stopped = threading.Event()
    loop.call_soon_threadsafe(lambda: (loop.remove_reader(read_end), stopped.set()))  # as a loop that died
    assert stopped.wait(WAIT_S)
    serving.frames.take_back()
    os.write(write_end, frame(b"half")[3:])
    serving.served.wait_count(3)
    os.close(write_end)
    assert serving.end() == [InputEnd.CLOSED]
    assert serving.served.bodies == [(LEND, "main"), (b"on the loop", "loop"), (b"half", "main")]
