"""One agent's session on the gateway socket: who it speaks for, its running requests, and what waits to be
sent to it (bounded: a peer that does not read is not read either)."""

from __future__ import annotations

import collections
import itertools
import time
from typing import Final

import anyio
from anyio.abc import SocketStream
from pydantic import BaseModel

from core.agents.identity import Runs

from ..process import jsonrpc
from ..process.jsonrpc import JsonObject, RequestId
from .bounds import ProgramKey
from .wire import encode

LIST_CHANGED: Final = "notifications/tools/list_changed"
OUTPUT_CAP: Final = 8 * 1024 * 1024


class Agent(BaseModel):
    """Who a session speaks for (interface A): `executable` and `runs` from the OS, name and version from
    clientInfo, cleaned so that a name cannot pass for an executable (core/agents/agent_names.py)."""

    name: str
    version: str
    executable: str
    runs: Runs | None = None

    @property
    def program(self) -> ProgramKey:
        """What bounds count by: the program, whatever name it gives itself."""
        return (self.executable, *((self.runs.kind, self.runs.target) if self.runs else ("", "")))


class Outgoing:
    """What waits for one peer, and its size in bytes: one writer sends it in order."""

    def __init__(self, stream: SocketStream) -> None:
        self._stream = stream
        self._queue: collections.deque[tuple[bytes, bool]] = collections.deque()  # (line, is the notice)
        self.size = 0
        self._queued = anyio.Event()
        self._drained = anyio.Event()
        self._notice_waiting = False

    def put(self, message: JsonObject, *, notice: bool = False) -> None:
        data = encode(message)
        self._queue.append((data, notice))
        self.size += len(data)
        self._queued.set()

    def put_list_changed(self) -> None:
        if not self._notice_waiting:  # one waiting notice says it all
            self._notice_waiting = True
            self.put(jsonrpc.notification_message(LIST_CHANGED, {}), notice=True)

    async def until_room(self) -> None:
        while self.size >= OUTPUT_CAP:
            await self._drained.wait()

    async def sent(self) -> None:
        """Until everything waiting has gone to the peer."""
        while self._queue:
            await self._drained.wait()

    async def write(self) -> None:
        """Send until the peer stops reading for good (the session's task group then ends)."""
        while True:
            while not self._queue:
                self._queued = anyio.Event()
                await self._queued.wait()
            data, notice = self._queue[0]
            if notice:
                self._notice_waiting = False  # a change after this point needs a notice of its own
            await self._stream.send(data)
            self._queue.popleft()
            self.size -= len(data)
            self._drained.set()
            self._drained = anyio.Event()


class Session:
    def __init__(self, session_id: str, agent: Agent, stream: SocketStream, scope: anyio.CancelScope) -> None:
        self.id = session_id
        self.agent = agent
        self.agent_json = agent.model_dump()  # sent with each of its requests to the browser
        self.program = agent.program
        self.out = Outgoing(stream)
        self.scope = scope  # cancelled to close the session (eviction, gateway off)
        # Running requests by a key of our own: a peer may reuse a request id, and must not escape the bound.
        self.running: dict[int, tuple[RequestId, anyio.CancelScope]] = {}
        self.keys = itertools.count()
        self.last_active = time.monotonic()

    @property
    def busy(self) -> bool:
        return bool(self.running)

    def close(self) -> None:
        self.scope.cancel()
