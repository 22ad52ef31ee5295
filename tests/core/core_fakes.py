"""Fake capabilities for the core's unit tests, answering as the contract §4 host and the service worker."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from core.calls.capabilities import BrowserToolError, McpErrorCode, McpRequestError
from core.host_link.servers import HostState, parse_statuses
from core.runtime.facade import Service

type ToolFn = Callable[[Any], Awaitable[dict[str, Any]]]

# seconds: a wait only reached when the behaviour under test is broken (a busy 2-core machine stalled a test
# inside Pyodide for over 1 s)
SOON = 10.0


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def echo_tool(name: str = "echo") -> ToolFn:
    async def run(arguments: Any) -> dict[str, Any]:
        return text_result(f"{name}:{json.dumps(arguments, sort_keys=True)}")

    return run


@dataclass
class FakeTool:
    name: str
    run: ToolFn = field(default_factory=echo_tool)
    description: str | None = "a tool"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    annotations: dict[str, Any] | None = None
    ui: dict[str, Any] | None = None  # MCP Apps `_meta.ui`, as the host passes it on


@dataclass
class FakeServer:
    tools: list[FakeTool] = field(default_factory=list)
    resource_pages: list[list[dict[str, Any]]] = field(default_factory=list)
    template_pages: list[list[dict[str, Any]]] = field(default_factory=list)
    contents: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # Prompt name → its text with `{argument}` placeholders; logs as the host's `servers/logs` keeps them.
    prompts: dict[str, str] = field(default_factory=dict)
    logs: list[dict[str, Any]] = field(default_factory=list)
    # A server that is down (contract §4): its last known tools stay listed with `available: false`, it
    # is listed under failedServers, and every request to it fails -32000 naming it and `reason`.
    failing: bool = False
    reason: str = "connection closed"
    tool_timeout_sec: float | None = None
    startup_timeout_sec: float | None = None

    def status(self, name: str) -> dict[str, Any]:
        status: dict[str, Any] = {"name": name, "transport": "stdio", "status": "ready"}
        if self.failing:
            status |= {"status": "restarting", "error": self.reason, "retryInMs": 2000, "restarts": 1}
        if self.tool_timeout_sec is not None:
            status["toolTimeoutSec"] = self.tool_timeout_sec
        if self.startup_timeout_sec is not None:
            status["startupTimeoutSec"] = self.startup_timeout_sec
        return status


@dataclass
class Request:
    method: str
    params: dict[str, Any]
    call_id: str | None
    timeout_ms: int | None = None


class FakeHost:
    """A `HostLink` behaving like the service worker and the native host behind it: same methods, shapes
    and error codes. `connected` is what `hostEnsure` answers."""

    def __init__(self, servers: dict[str, FakeServer] | None = None, *, connected: bool = True) -> None:
        self.servers = servers or {}
        self.connected = connected
        self.requests: list[Request] = []
        self.ensures = 0
        # Statuses of configured servers with no tools ever known (failed at first start, still starting).
        self.extra_statuses: list[dict[str, Any]] = []

    def methods(self) -> list[str]:
        return [request.method for request in self.requests]

    def statuses(self) -> list[dict[str, Any]]:
        return [server.status(name) for name, server in self.servers.items()] + self.extra_statuses

    def state_message(self) -> dict[str, Any]:
        """The `host/state` notification the service worker sends when its host port changes."""
        return {"type": "host/state", "connected": self.connected, "servers": self.statuses()}

    async def ensure(self) -> HostState:
        self.ensures += 1
        statuses = parse_statuses(self.statuses())
        return HostState(connected=self.connected, servers=statuses if self.connected else ())

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        self.requests.append(Request(method, dict(params), call_id, timeout_ms))
        if method == "tools/list":
            return self._tools_list()
        if method == "tools/call":
            return await self._tools_call(params)
        if method == "resources/list":
            return self._listing(params, "resources", lambda server: server.resource_pages)
        if method == "resources/templates/list":
            return self._listing(params, "resourceTemplates", lambda server: server.template_pages)
        if method == "resources/read":
            return self._read(params)
        if method == "prompts/list":
            return self._prompts_list(params)
        if method == "prompts/get":
            return self._prompts_get(params)
        if method == "servers/logs":
            return {"server": params["server"], "logs": self._configured(params["server"]).logs}
        raise McpRequestError(McpErrorCode.METHOD_NOT_FOUND, f"method not found: {method}")

    def _configured(self, name: Any) -> FakeServer:
        server = self.servers.get(name)
        if server is None:
            raise McpRequestError(McpErrorCode.UNKNOWN_SERVER, f"unknown server '{name}'")
        return server

    def _server(self, name: Any) -> FakeServer:
        server = self._configured(name)
        if server.failing:
            message = f"server '{name}' is unavailable: {server.reason}; restarting in 2 s"
            raise McpRequestError(McpErrorCode.SERVER_UNAVAILABLE, message, {"server": name})
        return server

    def _tools_list(self) -> dict[str, Any]:
        tools = []
        for server_name, server in self.servers.items():
            for tool in server.tools:
                entry: dict[str, Any] = {
                    "server": server_name,
                    "name": tool.name,
                    "qualifiedName": f"mcp__{server_name}__{tool.name}",
                    "inputSchema": tool.input_schema,
                    "available": not server.failing,
                }
                if tool.description is not None:
                    entry["description"] = tool.description
                if tool.annotations is not None:
                    entry["annotations"] = tool.annotations
                if tool.ui is not None:
                    entry["ui"] = tool.ui
                tools.append(entry)
        return {"tools": sorted(tools, key=lambda entry: entry["qualifiedName"])}

    async def _tools_call(self, params: dict[str, Any]) -> dict[str, Any]:
        server = self._server(params.get("server"))
        for tool in server.tools:
            if tool.name == params.get("tool"):
                return await tool.run(params.get("arguments"))
        raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"unknown tool '{params.get('tool')}'")

    def _listing(
        self, params: dict[str, Any], key: str, pages_of: Callable[[FakeServer], list[list[dict[str, Any]]]]
    ) -> dict[str, Any]:
        if "server" not in params:
            if "cursor" in params:
                raise McpRequestError(McpErrorCode.INVALID_PARAMS, "cursor requires server")
            items: list[dict[str, Any]] = []
            failed = []
            for name in sorted(self.servers):
                server = self.servers[name]
                if server.failing:
                    failed.append({"server": name, "message": server.reason})
                    continue
                items += [{"server": name, **item} for page in pages_of(server) for item in page]
            return {key: items, "failedServers": failed}
        name = params["server"]
        pages = pages_of(self._server(name))
        index = int(params.get("cursor", "0"))
        answer: dict[str, Any] = {"server": name, key: pages[index] if pages else []}
        if index + 1 < len(pages):
            answer["nextCursor"] = str(index + 1)
        return answer

    def _prompts_list(self, params: dict[str, Any]) -> dict[str, Any]:
        names = [params["server"]] if "server" in params else sorted(self.servers)
        prompts = [
            {"server": name, "name": prompt} for name in names for prompt in self._server(name).prompts
        ]
        return {"prompts": prompts}

    def _prompts_get(self, params: dict[str, Any]) -> dict[str, Any]:
        server = self._server(params.get("server"))
        text = server.prompts.get(params["name"])
        if text is None:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"Unknown prompt: {params['name']}")
        content = {"type": "text", "text": text.format(**params.get("arguments", {}))}
        return {"messages": [{"role": "user", "content": content}]}

    def _read(self, params: dict[str, Any]) -> dict[str, Any]:
        server = self._server(params.get("server"))
        uri = params.get("uri")
        if uri not in server.contents:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"resource not found: {uri}")
        return {"contents": server.contents[uri]}


# What chrome.tabs.query answers with one tab open (Chrome's fields, as the worker sends them).
ONE_TAB = [{"id": 1, "url": "https://a.test/", "title": "A"}]
# The answer a tab query makes of it.
ONE_TAB_LISTED = '[{"id":1,"url":"https://a.test/","title":"A"}]'

# What the `tab` executor answers of the tab a call runs on: a web page whose site the user granted.
GRANTED_TAB = {"id": 7, "url": "https://example.test/page", "title": "Example", "granted": True}


class FakeBrowser:
    """A `BrowserCapability`: records calls and answers from a table, or fails like the service worker.
    `tab` is what the `tab` executor reports of every tab (the policy's input)."""

    def __init__(
        self,
        answers: dict[str, Any] | None = None,
        *,
        error: str | None = None,
        tab: dict[str, Any] | None = None,
    ) -> None:
        self.answers = answers or {}
        self.error = error
        self.tab = tab or GRANTED_TAB
        self.calls: list[tuple[str, dict[str, Any], int]] = []

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        self.calls.append((tool, args, timeout_ms))
        if self.error is not None:
            raise BrowserToolError(self.error)
        if tool == "tab":
            return {**self.tab, "id": args.get("tabId", self.tab["id"])}
        return self.answers[tool]

    def tool_calls(self) -> list[tuple[str, dict[str, Any]]]:
        """The calls made to the tools' executors (not the `tab` look-ups that come first)."""
        return [(tool, args) for tool, args, _ in self.calls if tool != "tab"]


class Gate:
    """Lets a test hold a fake tool call open and see that it started."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()


def blocking_tool(gate: Gate, log: list[str], label: str) -> ToolFn:
    async def run(arguments: Any) -> dict[str, Any]:
        log.append(f"{label} start")
        gate.started.set()
        await gate.release.wait()
        log.append(f"{label} end")
        return text_result(label)

    return run


def function_call(name: str, arguments: str = "{}", call_id: str = "call-1") -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id}


def custom_call(name: str, input: str = "", call_id: str = "call-1") -> dict[str, Any]:
    return {"type": "custom_tool_call", "name": name, "input": input, "call_id": call_id}


def dispatch(item: dict[str, Any], turn: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "dispatch", "item": item}
    if turn is not None:
        message["turn"] = turn
    return message


async def connect(svc: Service, host: FakeHost, *, mcp_tools: bool = True) -> None:
    """What the service worker tells Python about its host, and the user's `mcpTools` switch."""
    assert (await svc.handle(host.state_message())) == {"ok": True}
    config = await svc.handle({"type": "config/set", "patch": {"mcpTools": mcp_tools}})
    assert config["mcpTools"] is mcp_tools


def never_settles() -> Awaitable[str]:
    """What a worker that never answers gives back: under Pyodide a real JS Promise that never settles (so
    the core's time limits are checked against Pyodide's own event loop), under CPython a Future."""
    if sys.platform == "emscripten":
        import js  # type: ignore[import-not-found]  # only inside Pyodide

        promise: Awaitable[str] = js.Promise.new(lambda resolve, reject: None)
        return promise
    return asyncio.get_running_loop().create_future()


class FakeJsApi:
    """The offscreen document's `api` object (core/runtime/bridge.py, I2) as the service worker answers it:
    `host`
    requests go to a `FakeHost`, `hostEnsure` says the host's state, `browser` calls go to a `FakeBrowser`.
    Records every request (kind, payload) and every `cancel(requestKey)`."""

    def __init__(self, host: FakeHost, browser: FakeBrowser | None = None) -> None:
        self.host = host
        self.browser = browser or FakeBrowser()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.events: list[dict[str, Any]] = []
        self.cancels: list[str] = []
        # Host methods the worker takes and never answers (a hung host).
        self.silent: set[str] = set()
        self.ensure_error: dict[str, Any] | None = None

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.requests]

    def host_payloads(self) -> list[dict[str, Any]]:
        return [payload for kind, payload in self.requests if kind == "host"]

    def request(self, kind: str, payload: dict[str, Any]) -> Awaitable[dict[str, Any]]:
        payload = json.loads(json.dumps(payload))  # what crossing to JS keeps: JSON's data, copied
        self.requests.append((kind, payload))
        if kind == "host" and payload["method"] in self.silent:
            return never_settles()
        return self._answer(kind, payload)

    async def _answer(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            if kind == "hostEnsure":
                if self.ensure_error is not None:
                    return {"error": self.ensure_error}
                state = await self.host.ensure()
                servers = list(state.servers)
                return {"result": {"connected": state.connected, "servers": servers}}
            if kind == "host":
                result = await self.host.request(
                    payload["method"],
                    payload["params"],
                    timeout_ms=payload["timeoutMs"],
                    call_id=payload.get("callId"),
                )
                return {"result": result}
            if kind == "browser":
                args = payload["args"]
                answer = await self.browser.call(payload["tool"], args, timeout_ms=payload["timeoutMs"])
                return {"result": answer}
        except McpRequestError as error:
            return {"error": {"code": error.code, "message": error.message, "data": error.data}}
        except BrowserToolError as error:
            return {"error": {"code": -32000, "message": error.message}}
        return {"error": {"code": -32601, "message": f"unknown request kind {kind}"}}

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(json.loads(json.dumps(event)))

    def cancel(self, request_key: str) -> None:
        self.cancels.append(request_key)
