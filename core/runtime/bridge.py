"""The one module that meets JavaScript: adapts the offscreen document's `api` object to the core.

The document passes a JS object with three methods; Pyodide makes their Promises awaitable here, so no
`js`/`pyodide` import is needed. Objects cross as objects, not JSON text: Python's dicts go out as they are
and the worker converts them (`toJs`); a JS object arrives as a proxy that converts itself (`to_py`), and in
CPython (the tests) plain dicts come in. Measured in docs/benchmarks.md (a big answer ~10× faster).

- ``api.request(kind, payload) -> Promise<object>``, answered ``{"result": ...}`` or
  ``{"error": {"code", "message", "data"?}}``:
  - ``"host"`` ``{method, params, requestKey, timeoutMs, callId?}``: one JSON-RPC request to the native host.
    ``requestKey`` is unique per request; ``callId`` (the model's call_id) only for ``tools/call``;
    ``timeoutMs`` is how long Python waits for it before it gives up and cancels it.
  - ``"hostEnsure"`` ``{}``: the worker (re)connects the host if needed; ``{connected, servers}``.
  - ``"browser"`` ``{tool, args, timeoutMs, requestKey}``: one chrome.* tool call, cancelled by its key when
    Python gives up (a command list then sends nothing more to the page).
  - ``"tabs"`` ``{op: "create"}`` → ``{tabId}`` (a background about:blank tab) and ``{op: "add", tabId,
    title, groupId}`` → ``{tabId, groupId}`` (into that group, or a new one titled `title`): an agent's
    tab and tab group (`core.agents.identity.TabGroups`).
- ``api.emit(event)``: an event for every ``events`` port.
- ``api.cancel(request_key)``: the request with that ``requestKey`` is cancelled (a host request by
  ``$/cancelRequest``, a browser call by stopping what is left of it).

Runtime messages come in through `Bridge.start` (a task that runs at once as far as it can: `Bridge.handle`);
a ``dispatch`` is answered ``{answer, record}``: the contract §5 answer for the caller, with its outcome, and
what history stores besides it (`core.records.history.record_for`: the answer again only when shortened); the
gateway answers ``gateway/call`` the same way itself (the answer there is the agent's MCP `CallToolResult`).
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable
from typing import Any, Protocol

from core.agents.agent_calls import AgentGateway
from core.calls.capabilities import BrowserToolError, McpErrorCode, McpRequestError
from core.host_link.servers import TIMEOUT_MARGIN_MS, HostState
from core.messages.runtime_messages import Dispatch, parse_runtime_message
from core.records.history import record_for
from core.runtime.facade import Service, refusal


class JsApi(Protocol):
    def request(self, kind: str, payload: dict[str, Any]) -> Awaitable[Any]: ...

    def emit(self, event: dict[str, Any]) -> None: ...

    def cancel(self, request_key: str) -> None: ...


def _from_js(value: Any) -> Any:
    """Python data from what JavaScript sent: in Pyodide a JS object is a `JsProxy`, which converts itself
    (JS null is None: py_boot.mjs sets `convertNullToNone`); numbers, strings and plain Python pass as is."""
    to_py = getattr(value, "to_py", None)
    return to_py() if callable(to_py) else value


async def _ask(api: JsApi, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = _from_js(await api.request(kind, payload))
    return reply


class _RequestKeys:
    """Each request's key, by which Python cancels it when it gives up: unique across documents too, so a
    restarted document never reuses a key the worker still tracks."""

    def __init__(self) -> None:
        self._prefix = f"py-{uuid.uuid4().hex[:12]}-"
        self._counter = itertools.count(1)

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter)}"


class HostMcp:
    """HostLink: the native host, reached through the service worker."""

    def __init__(self, api: JsApi) -> None:
        self._api = api
        self._keys = _RequestKeys()

    async def ensure(self) -> HostState:
        reply = await _ask(self._api, "hostEnsure", {})
        return HostState.from_wire(reply.get("result"))

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        key = self._keys.next()
        payload: dict[str, Any] = {
            "method": method,
            "params": params,
            "requestKey": key,
            "timeoutMs": timeout_ms,
        }
        if call_id is not None:
            payload["callId"] = call_id
        try:
            reply = await _ask(self._api, "host", payload)
        except asyncio.CancelledError:
            # The core gave up (its time limit) or the call was cancelled: a JS Promise cannot be cancelled
            # from here, so the worker cancels the host request and the host stops the work.
            self._api.cancel(key)
            raise
        if "error" in reply:
            err = reply["error"]
            code = err.get("code", McpErrorCode.INTERNAL_ERROR)
            raise McpRequestError(int(code), str(err.get("message", "")), err.get("data"))
        return reply.get("result")


def _browser_error(error: Any, fallback: str) -> BrowserToolError:
    """The executor's `{code, message, data?}` as sent (a code that is no integer: an internal error)."""
    if not isinstance(error, dict):
        return BrowserToolError(str(error) or fallback)
    code = error.get("code")
    return BrowserToolError(
        str(error.get("message", fallback)),
        code if isinstance(code, int) and not isinstance(code, bool) else McpErrorCode.INTERNAL_ERROR,
        error.get("data"),
    )


class ServiceWorkerBrowser:
    """BrowserCapability: chrome.* calls made by the service worker (offscreen documents have no tabs API)."""

    def __init__(self, api: JsApi) -> None:
        self._api = api
        self._keys = _RequestKeys()

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        key = self._keys.next()
        payload = {"tool": tool, "args": args, "timeoutMs": timeout_ms, "requestKey": key}
        try:
            reply = await _ask(self._api, "browser", payload)
        except asyncio.CancelledError:
            # The core gave up (the call's time limit, a stop): the worker sends nothing more of this call to
            # the page, as for a host request (a typing list's keys left stay unsent).
            self._api.cancel(key)
            raise
        if "error" in reply:
            raise _browser_error(reply["error"], "browser tool failed")
        return reply.get("result")


class ServiceWorkerTabGroups:
    """TabGroups: chrome.tabs.create / group and chrome.tabGroups.update, run by the service worker."""

    def __init__(self, api: JsApi) -> None:
        self._api = api

    async def _tabs(self, payload: dict[str, Any]) -> dict[str, Any]:
        reply = await _ask(self._api, "tabs", payload)
        if "error" in reply:
            raise _browser_error(reply["error"], "tab group call failed")
        result: dict[str, Any] = reply.get("result") or {}
        return result

    async def create(self) -> int:
        return int((await self._tabs({"op": "create"}))["tabId"])

    async def add(self, tab_id: int, title: str, group: int | None) -> int:
        result = await self._tabs({"op": "add", "tabId": tab_id, "title": title, "groupId": group})
        return int(result["groupId"])


class Bridge:
    def __init__(self, api: JsApi, *, timeout_margin_ms: int = TIMEOUT_MARGIN_MS) -> None:
        browser = ServiceWorkerBrowser(api)
        self._service = Service(
            emit=api.emit, browser=browser, host=HostMcp(api), timeout_margin_ms=timeout_margin_ms
        )
        self._gateway = AgentGateway(self._service, browser, api.emit, ServiceWorkerTabGroups(api))

    def start(self, raw: Any) -> asyncio.Task[Any]:
        """`handle(raw)` as a task that runs at once, up to its first wait: an answer Python has without
        waiting (config, a plan, a refusal) is done when this returns, and the worker takes it with
        `result()`. In the browser every turn of Pyodide's event loop is a scheduled task of the worker's
        own, and a call awaited from JavaScript took two of them before its first line and after its last."""
        return asyncio.Task(self.handle(raw), loop=asyncio.get_event_loop(), eager_start=True)

    async def handle(self, raw: Any) -> Any:
        """One runtime message (a JS object, or a dict in CPython) → its answer, as Python data."""
        data = _from_js(raw)
        try:
            message = parse_runtime_message(data)
        except McpRequestError as error:
            refused = refusal(data, error)
            if "outcome" in refused:  # a dispatch: the service worker records it as any other
                return {"answer": refused, "record": record_for(refused, relayed=True)}
            return refused
        if self._gateway.handles(message):
            answer = await self._gateway.handle(message)
        else:
            answer = await self._service.handle(message)
            await self._gateway.after(message)
        # The service worker records a dispatch in the history: it gets the answer and Python's record of it.
        if isinstance(message, Dispatch):
            return {"answer": answer, "record": record_for(answer, relayed=True)}
        return answer


def create_bridge(api: JsApi) -> Bridge:
    return Bridge(api)
