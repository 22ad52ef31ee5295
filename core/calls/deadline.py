"""Bounding an awaited call by a time limit, telling our own expiry apart from the callee's errors."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable


class DeadlineExceeded(Exception):
    def __init__(self, timeout_ms: int) -> None:
        super().__init__(f"timed out after {timeout_ms} ms")
        self.timeout_ms = timeout_ms


async def within[T](awaitable: Awaitable[T], timeout_ms: int) -> T:
    """Await `awaitable`, cancelling it after `timeout_ms`; raises `DeadlineExceeded` only for that expiry."""
    scope = asyncio.timeout(timeout_ms / 1000)
    try:
        async with scope:
            return await awaitable
    except TimeoutError:
        if scope.expired():
            raise DeadlineExceeded(timeout_ms) from None
        raise
