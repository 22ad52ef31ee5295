"""The one module that meets JavaScript: adapts the offscreen document's `api` object to the core.

The document passes a JS object with two methods; Pyodide makes their Promises awaitable here, so no
`js`/`pyodide` import is needed and everything that crosses the boundary is JSON text:

- ``api.request(kind, payload_json) -> Promise<str>``: ``kind`` is ``"host"`` (one JSON-RPC request to the
  native host) or ``"browser"`` (one chrome.* tool call); the answer is ``{"result": ...}`` or
  ``{"error": {"code", "message", "data"?}}``.
- ``api.emit(event_json)``: an event for every ``events`` port.
- ``api.cancel(call_id)``: the host request made for that tool call is cancelled (``$/cancelRequest``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any, Protocol

from core.capabilities import BrowserToolError, McpRequestError
from core.gateway import AgentGateway
from core.service import Service


class JsApi(Protocol):
    def request(self, kind: str, payload_json: str) -> Awaitable[str]: ...

    def emit(self, event_json: str) -> None: ...

    def cancel(self, call_id: str) -> None: ...


async def _ask(api: JsApi, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(await api.request(kind, json.dumps(payload)))
    return reply


class HostMcp:
    """McpCapability backed by the native host, reached through the service worker."""

    def __init__(self, api: JsApi) -> None:
        self._api = api

    async def request(self, method: str, params: dict[str, Any], *, call_id: str | None = None) -> Any:
        try:
            reply = await _ask(self._api, "host", {"method": method, "params": params, "callId": call_id})
        except asyncio.CancelledError:
            # A JS Promise cannot be cancelled from here; the worker cancels the host request instead.
            if call_id is not None:
                self._api.cancel(call_id)
            raise
        if "error" in reply:
            err = reply["error"]
            raise McpRequestError(int(err.get("code", -32603)), str(err.get("message", "")), err.get("data"))
        return reply.get("result")


class ServiceWorkerBrowser:
    """BrowserCapability: chrome.* calls made by the service worker (offscreen documents have no tabs API)."""

    def __init__(self, api: JsApi) -> None:
        self._api = api

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        reply = await _ask(self._api, "browser", {"tool": tool, "args": args, "timeoutMs": timeout_ms})
        if "error" in reply:
            raise BrowserToolError(str(reply["error"].get("message", "browser tool failed")))
        return reply.get("result")


class Bridge:
    def __init__(self, api: JsApi) -> None:
        def emit(event: dict[str, Any]) -> None:
            api.emit(json.dumps(event))

        browser = ServiceWorkerBrowser(api)
        self._service = Service(emit=emit, browser=browser)
        self._gateway = AgentGateway(self._service.handle, browser, emit)
        self._host = HostMcp(api)

    async def handle(self, message_json: str) -> str:
        message = json.loads(message_json)
        if self._gateway.handles(message.get("type")):
            return json.dumps(await self._gateway.handle(message))
        if message.get("type") == "host/state":
            # The capability exists exactly while the service worker holds a connected host port.
            self._service.set_mcp(self._host if message.get("connected") else None)
            answer: dict[str, Any] = {"ok": True}
        else:
            answer = await self._service.handle(message)
        await self._gateway.after(message)
        return json.dumps(answer)


def create_bridge(api: JsApi) -> Bridge:
    return Bridge(api)
