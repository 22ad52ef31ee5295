"""The host's stdio transport for the SDK's session, in place of `mcp.client.stdio.stdio_client`.

Same shape (an async context manager yielding the session's read and write streams) and the same child
environment, with three differences the host needs:
- lines are split at linear cost (the SDK re-joins its whole buffer for every 64 KiB read, so a 50 MB answer
  took 13.5 s), and a message may be at most 64 MiB: past that, with or without a newline, the server is
  stopped and the transport raises `MessageTooLarge` when it closes;
- the server's stderr passes through the host on its way to the log file, so known secrets are scrubbed;
- closing ends the whole process tree, detached children included (process_tree.py), within ~3 s."""

from __future__ import annotations

import collections
import contextlib
import logging
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..process.process_tree import RUNNING, ProcessTree

log = logging.getLogger(__name__)

MAX_MESSAGE: Final = 64 * 1024 * 1024  # contract §4: a larger server message fails that server
READ_SIZE: Final = 1024 * 1024
STDERR_LINE: Final = 64 * 1024  # longer stderr lines are written in pieces
EXIT_GRACE_SECONDS: Final = 0.5  # for a server to leave by itself once its stdin closes
TERM_GRACE_SECONDS: Final = 2.0  # contract §4: SIGTERM, then SIGKILL after 2 s
REAP_SECONDS: Final = 1.0
POLL_SECONDS: Final = 0.05

type Scrub = Callable[[str], str]


class MessageTooLarge(Exception):
    """The server sent a message over MAX_MESSAGE bytes, or a line that did not end before that."""

    def __init__(self, size: int) -> None:
        super().__init__(
            f"the server sent a message of more than 64 MiB ({size} bytes without a line end); "
            "the host stopped it (64 MiB is the largest message a server may send)"
        )


class LineSplitter:
    """Newline-delimited messages from a byte stream, at linear cost, with a cap on a message's size."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self._limit = limit
        self._pieces: list[bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> list[bytes]:
        """The lines `data` completes (without their newline); raises MessageTooLarge past the cap."""
        lines: list[bytes] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._check(self._size + end - start)
            self._pieces.append(data[start:end])
            lines.append(b"".join(self._pieces))
            self._pieces, self._size = [], 0
            start = end + 1
        if start < len(data):
            self._check(self._size + len(data) - start)
            self._pieces.append(data[start:])
            self._size += len(data) - start
        return lines

    def _check(self, size: int) -> None:
        if size > self._limit:
            raise MessageTooLarge(size)


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except (ValidationError, ValueError) as exc:
        return exc


def _keep(text: str) -> str:
    return text


def _log_stderr(errlog: IO[bytes], scrub: Scrub, data: bytes) -> None:
    try:
        errlog.write(scrub(data.decode(errors="replace")).encode())
        errlog.flush()
    except OSError as exc:  # a full disk must not stop the server
        log.debug("cannot write a server's stderr to its log: %s", exc)


async def _end_tree(tree: ProcessTree) -> None:
    """SIGTERM the whole tree, then SIGKILL what is left after TERM_GRACE_SECONDS (contract §4)."""
    tree.members()  # remember detached descendants while their parent still links them
    tree.signal(signal.SIGTERM)
    with anyio.move_on_after(TERM_GRACE_SECONDS):
        while tree.alive():
            await anyio.sleep(POLL_SECONDS)
        return
    log.info("process tree of %d ignored SIGTERM for %g s; killing it", tree.leader, TERM_GRACE_SECONDS)
    tree.signal(signal.SIGKILL)


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    """Whether the process ended within `timeout`; polled, because `wait()` also waits for its pipes to close,
    which a surviving grandchild can hold open."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(POLL_SECONDS / 2)
    return process.returncode is not None


def stdio_transport(
    server: StdioServerParameters, errlog: IO[bytes], scrub: Scrub = _keep
) -> contextlib.AbstractAsyncContextManager[TransportStreams]:
    """The transport for one start of a stdio server; `scrub` cleans each stderr line before it is logged."""
    if sys.platform == "win32":  # pragma: no cover - job objects, not process groups; the SDK has them
        return stdio_client(server, errlog=errlog)  # type: ignore[arg-type]  # it needs only fileno()
    return _posix_transport(server, errlog, scrub)


class _ServerOutput:
    """The server's stdout read as messages by the session itself, with no task or memory stream between:
    a reader task and a zero-buffer stream cost each message a task switch and two loop turns
    (docs/benchmarks.md). Ends (EndOfStream) when the server closes its output or `end` is called, and on a
    message over the cap, which `failure` then holds."""

    def __init__(self, stdout: anyio.abc.ByteReceiveStream, command: str) -> None:
        self._stdout = stdout
        self._command = command
        self._splitter = LineSplitter()
        self._lines: collections.deque[bytes] = collections.deque()
        self._ended = False
        self._closed = False
        self.failure: MessageTooLarge | None = None

    async def receive(self) -> SessionMessage | Exception:
        while not self._lines:
            if self._closed:
                raise anyio.ClosedResourceError
            if self._ended:
                raise anyio.EndOfStream
            try:
                data = await self._stdout.receive(READ_SIZE)
                self._lines.extend(line for line in self._splitter.feed(data) if line.strip())
            except MessageTooLarge as exc:
                self.failure, self._ended = exc, True
                log.warning("stdio server %s: %s", self._command, exc)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                self._ended = True  # the server closed its output, or it is being stopped
        return _parse(self._lines.popleft())

    async def end(self) -> None:
        """Wake a session waiting for the server (it stopped reading its input): it sees the end."""
        self._ended = True
        await self._stdout.aclose()

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self.close()

    def __aiter__(self) -> _ServerOutput:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _ServerOutput:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


class _ServerInput:
    """The session's messages written to the server's stdin by the sending task itself (no writer task: the
    hop cost two loop turns before the server saw a request). A write is one `write` of a whole line, so
    messages of tasks sending at once never interleave; the pipe's buffer, drained before `send` returns,
    bounds what waits."""

    def __init__(self, stdin: anyio.abc.ByteSendStream, output: _ServerOutput) -> None:
        self._stdin = stdin
        self._output = output
        self._closed = False

    async def send(self, message: SessionMessage) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        try:
            await self._stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await self._output.end()  # the server stopped reading: the session must see the end
            raise anyio.BrokenResourceError from None

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> _ServerInput:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


@asynccontextmanager
async def _posix_transport(
    server: StdioServerParameters, errlog: IO[bytes], scrub: Scrub
) -> AsyncIterator[TransportStreams]:
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        cwd=server.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group and session: one signal reaches the whole tree
    )
    tree = ProcessTree(process.pid)
    RUNNING.add(tree)
    # No awaits before the task group: a cancellation in the gap would leak the process.
    assert process.stdout is not None and process.stdin is not None
    read_stream = _ServerOutput(process.stdout, server.command)
    write_stream = _ServerInput(process.stdin, read_stream)

    async def copy_stderr() -> None:
        # Whole lines are scrubbed at once, so a secret inside a line is always seen whole.
        assert process.stderr is not None
        buffer = bytearray()
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            while True:
                buffer += await process.stderr.receive(READ_SIZE)
                end = buffer.rfind(b"\n") + 1 or (len(buffer) if len(buffer) > STDERR_LINE else 0)
                if end:
                    _log_stderr(errlog, scrub, bytes(buffer[:end]))
                    del buffer[:end]
        if buffer:
            _log_stderr(errlog, scrub, bytes(buffer))

    async def stop() -> None:
        read_stream.close()
        write_stream.close()
        if process.stdin is not None:  # what the session wrote is still passed on before the pipe closes
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        await _exited(process, EXIT_GRACE_SECONDS)
        await _end_tree(tree)
        if not await _exited(process, REAP_SECONDS):
            log.warning(
                "stdio server %s (pid %d) is still running after SIGKILL", server.command, process.pid
            )
        RUNNING.discard(tree)

    async with anyio.create_task_group() as group:
        group.start_soon(copy_stderr)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # a cancelled caller must not leak the server
                await stop()
            group.cancel_scope.cancel()  # pipes a surviving grandchild still holds open
    if read_stream.failure is not None:
        raise read_stream.failure
