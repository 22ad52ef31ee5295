"""Requests the host makes of the browser (the agent gateway's calls, and any later host → browser request),
answered like any JSON-RPC request; ids are `gw:N` so they never meet the browser's own request ids."""

from __future__ import annotations

import contextlib
import itertools
import logging
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from .jsonrpc import CANCEL_METHOD, McpRequestError, Response
from .outbox import Outbox

log = logging.getLogger(__name__)


class BrowserGone(Exception):
    """The browser did not answer: it disconnected, or the request could not be sent."""


class BrowserLink:
    """Requests from the host to the browser, answered like any JSON-RPC request (ids `gw:N`)."""

    def __init__(self, outbox: Outbox) -> None:
        self._outbox = outbox
        self._ids = itertools.count(1)
        self._pending: dict[str, MemoryObjectSendStream[Response]] = {}

    async def request(self, method: str, params: dict[str, Any], *, timeout: float) -> Any:
        request_id = f"gw:{next(self._ids)}"
        send, receive = anyio.create_memory_object_stream[Response](1)
        self._pending[request_id] = send
        try:
            try:
                self._outbox.request(request_id, method, params)
            except McpRequestError as exc:
                raise BrowserGone(exc.message) from None
            with anyio.fail_after(timeout):
                response = await receive.receive()
        except TimeoutError:
            raise BrowserGone(f"the browser did not answer {method} within {timeout:g} s") from None
        except anyio.get_cancelled_exc_class():
            self._outbox.notify(CANCEL_METHOD, {"id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)
            receive.close()
        if response.error is not None:
            raise BrowserGone(str(response.error.get("message", "the browser refused the request")))
        return response.result

    def deliver(self, response: Response) -> None:
        waiter = self._pending.pop(str(response.id), None)
        if waiter is None:
            log.debug("an answer for %r nobody waits for", response.id)
            return
        with contextlib.suppress(anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
            waiter.send_nowait(response)
