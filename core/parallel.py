"""The gate that keeps serial tools exclusive (codex `tools/parallel.rs`: one RwLock per session).

Tools that support parallel calls hold it shared, every other tool holds it alone. Waiters are served in
arrival order, so a serial call waits for the running parallel ones and later calls wait for it.
"""

from __future__ import annotations

import asyncio
from collections import deque
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
