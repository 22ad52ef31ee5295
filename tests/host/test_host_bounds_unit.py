"""The pieces behind the host's bounds, without a host: the frame writer's budget, the server line splitter,
and finding a server's whole process tree."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from native_host.process.framing import FrameWriter, read_frame
from native_host.process.process_tree import ProcessTree
from native_host.servers.stdio_transport import LineSplitter, MessageTooLarge

pytestmark = pytest.mark.unit

KIB = 1024


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_the_writer_holds_at_most_its_budget_and_then_makes_senders_wait(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    writer = FrameWriter(os.fdopen(write_end, "wb", closefd=False), lambda exc: None, limit=256 * KIB)
    body = b"x" * (60 * KIB)
    sent: list[int] = []

    def produce() -> None:
        for index in range(40):  # 2.4 MiB: far more than the pipe and the budget hold
            writer.send([str(index).encode().ljust(8) + body])
            sent.append(index)

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    time.sleep(1.0)  # nobody reads: the producer must be stuck, with the budget full
    assert producer.is_alive() and len(sent) < 40
    assert writer.unread <= 256 * KIB + len(body) + 64
    room = threading.Thread(target=writer.wait_for_room, daemon=True)
    room.start()
    time.sleep(0.2)
    assert room.is_alive()  # the reader would not take new requests now
    with os.fdopen(read_end, "rb", closefd=False) as stream:
        received = [read_frame(stream) for _ in range(40)]
    producer.join(10)
    room.join(10)
    assert [frame[:8].strip() for frame in received if frame] == [str(i).encode() for i in range(40)]
    writer.close(5)


def test_release_lets_waiting_senders_through(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    errors: list[OSError] = []
    writer = FrameWriter(os.fdopen(write_end, "wb", closefd=False), errors.append, limit=64 * KIB)
    done = threading.Event()

    def produce() -> None:
        for _ in range(20):
            writer.send([b"y" * (30 * KIB)])
        done.set()

    threading.Thread(target=produce, daemon=True).start()
    assert not done.wait(0.5)
    writer.release()
    assert done.wait(10)
    # The writer thread still waits to write what was queued. Its pipe is closed under it before the fixture
    # frees the descriptor: left waiting, it wrote into whatever pipe took that number next (a later test's
    # child's stdout read '\x00x\x00\x00yyy…' in fresh-clone run 35).
    os.close(read_end)
    writer.close(5)
    assert [type(e) for e in errors] == [BrokenPipeError]


def test_a_closed_browser_end_never_blocks_senders(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    errors: list[OSError] = []
    writer = FrameWriter(os.fdopen(write_end, "wb", closefd=False), errors.append, limit=64 * KIB)
    os.close(read_end)
    for _ in range(100):
        writer.send([b"z" * (60 * KIB)])
    writer.wait_for_room()
    writer.close(5)
    assert len(errors) == 1 and writer.unread == 0


def test_lines_are_split_across_reads() -> None:
    splitter = LineSplitter(limit=100)
    assert splitter.feed(b'{"a":') == []
    assert splitter.feed(b'1}\n{"b"') == [b'{"a":1}']
    assert splitter.feed(b":2}\n\n") == [b'{"b":2}', b""]
    assert splitter.feed(b"x" * 100 + b"\n") == [b"x" * 100]


def test_a_line_past_the_cap_is_refused_with_or_without_its_end() -> None:
    with pytest.raises(MessageTooLarge) as caught:
        splitter = LineSplitter(limit=1000)
        for _ in range(20):
            splitter.feed(b"x" * 100)
    assert "64 MiB" in str(caught.value)
    with pytest.raises(MessageTooLarge):
        LineSplitter(limit=1000).feed(b"y" * 1001 + b"\n")


SPAWNER = """
import subprocess, sys
sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
group = subprocess.Popen(sleeper)
detached = subprocess.Popen(sleeper, start_new_session=True)
print(group.pid, detached.pid, flush=True)
import time; time.sleep(60)
"""


def test_a_tree_includes_children_that_left_the_group() -> None:
    leader = subprocess.Popen(
        [sys.executable, "-c", SPAWNER], stdout=subprocess.PIPE, start_new_session=True, text=True
    )
    assert leader.stdout is not None
    child, detached = (int(pid) for pid in leader.stdout.readline().split())
    tree = ProcessTree(leader.pid)
    try:
        assert {pid for pid, _ in tree.members()} == {leader.pid, child, detached}
        tree.signal(signal.SIGKILL)
        leader.wait(10)
        deadline = time.monotonic() + 10
        while tree.alive():
            assert time.monotonic() < deadline, f"still running: {tree.members()}"
            time.sleep(0.05)
    finally:
        for pid in (leader.pid, child, detached):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
