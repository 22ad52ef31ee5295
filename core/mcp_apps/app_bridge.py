"""The host side of an MCP App's postMessage bridge, decided here; the popup only relays and draws.

`app/view` reads a tool's `ui://` resource from its server and answers the View's document (its CSP inside)
with the messages to send once the View says it is initialized (tool-input, then tool-result or
tool-cancelled) and the teardown request for its close control. `app/request` takes one JSON-RPC message the
View sent and answers what the popup does: reply to the View, ask the person first, open a link, resize, or
nothing. A View's `tools/call` and `resources/read` reach only its own server; a call that may change things
waits for the person's yes, as an agent's would (core/tools/tool_facts.py `needs_yes`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from core.calls.capabilities import McpCapability, McpErrorCode, McpRequestError
from core.calls.deadline import DeadlineExceeded
from core.calls.names import qualified_mcp_tool_name
from core.host_link.app_meta import APP_MIME_TYPE, callable_by_app, ui_of, view_document, view_policy
from core.host_link.host_requests import ask_host
from core.host_link.servers import ServerBoard
from core.mcp_apps.app_words import call_question, link_question
from core.messages import runtime_messages as m
from core.messages.host_methods import (
    RESOURCES_READ,
    TOOLS_CALL,
    CallParams,
    HostMethod,
    HostParams,
    ReadParams,
)
from core.tools.registry import ToolRegistry
from core.tools.tool_facts import needs_yes
from core.web.web_url import UrlRefused, read_web_url

type Answer = dict[str, Any]

UI_PROTOCOL_VERSION: Final = "2026-01-26"
MAX_MESSAGE_CHARS: Final = 1 << 20  # one View message, as JSON
MAX_HTML_CHARS: Final = 4 << 20  # a View's document
MIN_HEIGHT, MAX_HEIGHT = 60, 2000  # px: what a View's size-changed may ask for
# Methods of the spec a host may decline; they are refused with -32000 naming them, never left unanswered.
DECLINED: Final = frozenset({"ui/message", "ui/update-model-context", "ui/request-display-mode"})
TEARDOWN_ID: Final = "tabgate-teardown"


class JsonRpc(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    jsonrpc: Literal["2.0"]
    method: StrictStr | None = None  # None: a response (the View's answer to the host's teardown)
    id: StrictStr | StrictInt | None = None
    params: dict[str, Any] = Field(default_factory=dict)


def _notification(method: str, params: dict[str, Any]) -> Answer:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _reply(request_id: str | int, result: Answer) -> Answer:
    return {"action": "reply", "reply": {"jsonrpc": "2.0", "id": request_id, "result": result}}


def _initialized(theme: Literal["light", "dark"], version: str) -> Answer:
    """The answer to `ui/initialize`: what Tabgate offers a View, and the popup's theme."""
    return {
        "protocolVersion": UI_PROTOCOL_VERSION,
        "hostInfo": {"name": "Tabgate", "version": version},
        "hostCapabilities": {"openLinks": {}, "serverTools": {}, "serverResources": {}},
        "hostContext": {
            "theme": theme,
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "web",
        },
    }


def _refuse(request_id: str | int, code: int, message: str) -> Answer:
    error = {"code": int(code), "message": message}
    return {"action": "reply", "reply": {"jsonrpc": "2.0", "id": request_id, "error": error}}


class AppBridge:
    def __init__(
        self,
        *,
        registry: Callable[[], Awaitable[ToolRegistry]],
        mcp: Callable[[], McpCapability | None],
        servers: ServerBoard,
    ) -> None:
        self._registry = registry
        self._mcp = mcp
        self._servers = servers

    async def _tool(self, name: str) -> Answer:
        for entry in (await self._registry()).offered():
            if entry["name"] == name and entry.get("source") == "mcp":
                return entry
        raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"no MCP tool {name!r} is offered now")

    def _host(self) -> McpCapability:
        mcp = self._mcp()
        if mcp is None:
            raise McpRequestError(
                McpErrorCode.SERVER_UNAVAILABLE, "MCP tools are off or the host is not connected"
            )
        return mcp

    async def _ask[P: HostParams](self, method: HostMethod[P], params: P, server: str) -> Any:
        return await ask_host(self._host(), method, params, limit_ms=self._servers.request_limit_ms(server))

    # --- app/view -----------------------------------------------------------------------------------------

    async def view(self, parsed: m.AppView) -> Answer:
        tool = await self._tool(parsed.tool)
        ui = ui_of(tool)
        if ui is None:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"the tool {parsed.tool!r} has no App")
        server = tool["server"]
        try:
            read = await self._ask(RESOURCES_READ, ReadParams(server=server, uri=ui.resourceUri), server)
        except (McpRequestError, DeadlineExceeded) as error:
            raise McpRequestError(
                McpErrorCode.SERVER_UNAVAILABLE, f"reading {ui.resourceUri}: {error}"
            ) from None
        html, meta = _app_html(read, ui.resourceUri)
        policy = view_policy(meta.get("csp"))
        after = [_notification("ui/notifications/tool-input", {"arguments": parsed.arguments})]
        if parsed.cancelled:
            after.append(
                _notification("ui/notifications/tool-cancelled", {"reason": "cancelled by the person"})
            )
        elif (result := _tool_result(parsed.answer)) is not None:
            after.append(_notification("ui/notifications/tool-result", result))
        return {
            "document": view_document(html, policy),
            "csp": policy.csp,
            "proxyPolicy": policy.proxy,
            "dropped": list(policy.dropped),
            "server": server,
            "afterInitialized": after,
            "teardown": {"jsonrpc": "2.0", "id": TEARDOWN_ID, "method": "ui/resource-teardown", "params": {}},
        }

    @staticmethod
    def theme_changed(message: m.AppTheme) -> Answer:
        """`app/theme`: the notification telling an initialized View the popup's theme changed."""
        theme = message.theme
        return {"notification": _notification("ui/notifications/host-context-changed", {"theme": theme})}

    # --- app/request --------------------------------------------------------------------------------------

    async def request(self, parsed: m.AppRequest) -> Answer:
        if len(json.dumps(parsed.message)) > MAX_MESSAGE_CHARS:
            return {"action": "ignore", "why": f"a View message over {MAX_MESSAGE_CHARS} characters"}
        try:
            rpc = JsonRpc.model_validate(parsed.message)
        except ValueError:
            return {"action": "ignore", "why": "not a JSON-RPC 2.0 message"}
        if rpc.method is None:
            if rpc.id == TEARDOWN_ID:
                return {"action": "tornDown"}
            return {"action": "ignore", "why": "an answer to no request of Tabgate's"}
        if rpc.id is None:
            return self._notified(rpc.method, rpc.params)
        if rpc.id == TEARDOWN_ID:
            return {"action": "ignore", "why": "a View may not use the host's own request id"}
        app = await self._tool(parsed.tool)
        if rpc.method == "ui/initialize":
            return _reply(rpc.id, _initialized(parsed.theme, parsed.version))
        if rpc.method == "ping":
            return _reply(rpc.id, {})
        if rpc.method == "tools/call":
            return await self._call(app, rpc, parsed.approved)
        if rpc.method == "resources/read":
            return await self._read(app, rpc)
        if rpc.method == "ui/open-link":
            return self._open(app, rpc, parsed.approved)
        if rpc.method in DECLINED:
            return _refuse(rpc.id, McpErrorCode.SERVER_UNAVAILABLE, f"Tabgate does not support {rpc.method}")
        return _refuse(rpc.id, McpErrorCode.METHOD_NOT_FOUND, f"unknown method {rpc.method[:100]!r}")

    def _notified(self, method: str, params: Answer) -> Answer:
        if method == "ui/notifications/initialized":
            return {"action": "initialized"}
        if method == "ui/notifications/size-changed":
            height = params.get("height")
            if isinstance(height, (int, float)) and not isinstance(height, bool):
                return {"action": "resize", "height": int(min(MAX_HEIGHT, max(MIN_HEIGHT, height)))}
        return {"action": "ignore", "why": f"a notification Tabgate does not act on: {method[:100]!r}"}

    async def _call(self, app: Answer, rpc: JsonRpc, approved: bool | None) -> Answer:
        assert rpc.id is not None
        name, arguments = rpc.params.get("name"), rpc.params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _refuse(
                rpc.id, McpErrorCode.INVALID_PARAMS, "tools/call needs a `name` and object `arguments`"
            )
        server = app["server"]
        try:
            target = await self._tool(qualified_mcp_tool_name(server, name))
        except McpRequestError:
            return _refuse(
                rpc.id, McpErrorCode.INVALID_PARAMS, f"the server {server} offers no tool {name!r}"
            )
        if not callable_by_app(target):
            return _refuse(rpc.id, McpErrorCode.INVALID_PARAMS, f"the tool {name!r} is not for Apps to call")
        if needs_yes(target, "agent") and approved is not True:
            if approved is False:
                return _refuse(rpc.id, McpErrorCode.INVALID_PARAMS, "the person did not allow this call")
            return {"action": "ask", "question": call_question(app, target, arguments)}
        params = CallParams(server=server, tool=name, arguments=arguments)
        return await self._relay(rpc.id, TOOLS_CALL, params, server)

    async def _read(self, app: Answer, rpc: JsonRpc) -> Answer:
        assert rpc.id is not None
        uri = rpc.params.get("uri")
        if not isinstance(uri, str):
            return _refuse(rpc.id, McpErrorCode.INVALID_PARAMS, "resources/read needs a `uri`")
        server = app["server"]
        return await self._relay(rpc.id, RESOURCES_READ, ReadParams(server=server, uri=uri), server)

    async def _relay[P: HostParams](
        self, request_id: str | int, method: HostMethod[P], params: P, server: str
    ) -> Answer:
        try:
            result = await self._ask(method, params, server)
        except McpRequestError as error:
            return _refuse(request_id, error.code, error.message)
        except DeadlineExceeded as error:
            return _refuse(request_id, McpErrorCode.TIMED_OUT, f"{method.name}: {error}")
        return _reply(request_id, result if isinstance(result, dict) else {})

    def _open(self, app: Answer, rpc: JsonRpc, approved: bool | None) -> Answer:
        assert rpc.id is not None
        url = rpc.params.get("url")
        try:
            read_web_url(url if isinstance(url, str) else "")
        except UrlRefused as refused:
            return _refuse(rpc.id, McpErrorCode.INVALID_PARAMS, f"ui/open-link: {refused}")
        assert isinstance(url, str)
        if approved is None:
            return {"action": "ask", "question": link_question(app, url)}
        if not approved:
            return _refuse(rpc.id, McpErrorCode.INVALID_PARAMS, "the person did not open the link")
        return {**_reply(rpc.id, {}), "open": url}


def _tool_result(answer: Answer | None) -> Answer | None:
    """The CallToolResult inside a `dispatch` answer (an MCP call's `{Ok}` or `{Err}`), for tool-result."""
    output = answer.get("output") if answer is not None else None
    result = output.get("result") if isinstance(output, dict) else None
    if isinstance(result, dict) and isinstance(result.get("Ok"), dict):
        ok: Answer = result["Ok"]
        return ok
    if isinstance(result, dict) and isinstance(result.get("Err"), str):
        return {"content": [{"type": "text", "text": result["Err"]}], "isError": True}
    return None


def _app_html(read: Any, uri: str) -> tuple[str, dict[str, Any]]:
    """The HTML of a `ui://` resource and its `_meta.ui`; McpRequestError when it is not an App's document."""
    contents = read.get("contents") if isinstance(read, dict) else None
    for item in contents if isinstance(contents, list) else []:
        if isinstance(item, dict) and item.get("uri") == uri and isinstance(item.get("text"), str):
            if item.get("mimeType") != APP_MIME_TYPE:
                raise McpRequestError(
                    McpErrorCode.INVALID_PARAMS, f"{uri} is {item.get('mimeType')!r}, not {APP_MIME_TYPE}"
                )
            if len(item["text"]) > MAX_HTML_CHARS:
                raise McpRequestError(
                    McpErrorCode.RESULT_TOO_LARGE, f"{uri} is over {MAX_HTML_CHARS} characters"
                )
            meta = item.get("_meta")
            ui = meta.get("ui") if isinstance(meta, dict) else None
            return item["text"], ui if isinstance(ui, dict) else {}
    raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"the server answered no HTML text for {uri}")
