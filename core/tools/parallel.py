"""The gates that keep serial tools exclusive within a turn (codex `tools/parallel.rs`: one RwLock per turn).

Within one turn, tools that support parallel calls hold the gate shared and every other tool holds it alone.
Waiters are served in arrival order, so a serial call waits for the running parallel ones and later calls
wait for it. Calls of different turns never wait for each other; a call without a turn is a turn of its own.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from types import TracebackType


class ParallelGate:
    def __init__(self) -> None:
        self._shared_holders = 0
        self._exclusive_held = False
        self._waiters: deque[tuple[bool, asyncio.Future[None]]] = deque()
        self._shared = _Hold(self, exclusive=False)
        self._exclusive = _Hold(self, exclusive=True)

    def hold(self, *, parallel: bool) -> _Hold:
        """`async with gate.hold(parallel=...)`: shared for parallel-capable tools, exclusive otherwise."""
        return self._shared if parallel else self._exclusive

    def _free_for(self, exclusive: bool) -> bool:
        if exclusive:
            return not self._exclusive_held and self._shared_holders == 0
        return not self._exclusive_held

    def _take(self, exclusive: bool) -> None:
        if exclusive:
            self._exclusive_held = True
        else:
            self._shared_holders += 1

    async def _acquire(self, exclusive: bool) -> None:
        if not self._waiters and self._free_for(exclusive):
            self._take(exclusive)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (exclusive, waiter)
        self._waiters.append(entry)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                # Granted just as we were cancelled: give it back.
                self._release(exclusive)
            else:
                self._waiters.remove(entry)
                self._wake()
            raise

    def _release(self, exclusive: bool) -> None:
        if exclusive:
            self._exclusive_held = False
        else:
            self._shared_holders -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters:
            exclusive, waiter = self._waiters[0]
            if not self._free_for(exclusive):
                return
            self._waiters.popleft()
            self._take(exclusive)
            waiter.set_result(None)


class _Hold:
    __slots__ = ("_exclusive", "_gate")

    def __init__(self, gate: ParallelGate, *, exclusive: bool) -> None:
        self._gate = gate
        self._exclusive = exclusive

    async def __aenter__(self) -> None:
        await self._gate._acquire(self._exclusive)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._gate._release(self._exclusive)


_ALONE: AbstractAsyncContextManager[None] = nullcontext()


class TurnGates:
    """One `ParallelGate` per running turn, dropped when the turn's last call is over (bounded memory)."""

    def __init__(self) -> None:
        self._gates: dict[str, tuple[ParallelGate, int]] = {}

    def __len__(self) -> int:
        """How many turns have a call running or waiting."""
        return len(self._gates)

    def hold(self, turn: str | None, *, parallel: bool) -> AbstractAsyncContextManager[None]:
        if turn is None:
            # Its own turn: nothing else can be in it, so there is nothing to wait for (and no async
            # generator to make per call).
            return _ALONE
        return self._turn_hold(turn, parallel=parallel)

    @asynccontextmanager
    async def _turn_hold(self, turn: str, *, parallel: bool) -> AsyncIterator[None]:
        gate, users = self._gates.get(turn, (None, 0))
        if gate is None:
            gate = ParallelGate()
        self._gates[turn] = (gate, users + 1)
        try:
            async with gate.hold(parallel=parallel):
                yield
        finally:
            gate, users = self._gates[turn]
            if users == 1:
                del self._gates[turn]
            else:
                self._gates[turn] = (gate, users - 1)
