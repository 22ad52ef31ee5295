"""`Service`: the façade the bridge calls for every runtime message (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from core.browser.tool_table import BROWSER_TOOLS
from core.calls.capabilities import BrowserCapability, McpCapability, McpErrorCode
from core.calls.deadline import DeadlineExceeded, within
from core.calls.errors import Fatal, RequestError
from core.calls.events import Emit
from core.calls.items import FunctionCallOutputItem, ItemError, parse_response_item
from core.calls.outcome import Outcome, dispatch_answer
from core.calls.output import Pages
from core.calls.tab_scope import CallTarget
from core.calls.validation import format_validation_error
from core.host_link.elicitation import Questions
from core.host_link.host_views import prompt_get, prompts, server_logs
from core.host_link.mcp_tools import McpTool, McpToolDirectory
from core.host_link.server_controls import CONTROLS
from core.host_link.servers import TIMEOUT_MARGIN_MS, HostLink, HostState, ServerBoard, parse_statuses
from core.mcp_apps.app_bridge import AppBridge
from core.records.history_book import HistoryBook
from core.records.resumed_tasks import finished_task
from core.runtime.catalog import build_registry
from core.runtime.config import ConfigError, ToolsConfig, load_stored_config
from core.tools.handlers.plan import PlanBoard
from core.tools.parallel import TurnGates
from core.tools.registry import ToolRegistry
from core.tools.router import handle_response_item, tool_name_of
from core.tools.tool_facts import ranked, shown

type Message = dict[str, Any]
type Answer = dict[str, Any]

# How long a call that falls through to the MCP path waits for the service worker to (re)connect the host.
HOST_ENSURE_LIMIT_MS = 10_000


class Service:
    def __init__(
        self,
        *,
        emit: Emit,
        browser: BrowserCapability | None = None,
        host: HostLink | None = None,
        timeout_margin_ms: int = TIMEOUT_MARGIN_MS,
    ) -> None:
        self._emit = emit
        self._browser = browser
        # The way to the host exists from the start; whether a host is connected is what the worker says.
        self._host = host
        self._connected = False
        self._servers = ServerBoard(margin_ms=timeout_margin_ms)
        self._config = ToolsConfig()
        self._plan = PlanBoard()
        self._questions = Questions(emit)
        self._history = HistoryBook()
        # Gates per turn for the service's lifetime: calls started under an older registry still count.
        self._gates = TurnGates()
        self._mcp_tools = McpToolDirectory()
        self._registry: ToolRegistry | None = None
        # What the cached registry was built from: the MCP table and the error of its last fetch.
        self._registry_table: tuple[dict[str, McpTool] | None, str | None] = (None, None)
        apps = AppBridge(registry=self._registry_with_mcp_tools, mcp=self._mcp, servers=self._servers)
        self._routes: dict[str, Callable[[Message], Awaitable[Answer]]] = {
            "app/view": apps.view,
            "app/request": apps.request,
            "app/theme": self._sync(apps.theme_changed),
            "tools": self._tools,
            "dispatch": self._dispatch,
            "config/get": self._config_get,
            "config/set": self._config_set,
            "config/load": self._config_load,
            "host/state": self._host_state,
            "host/servers": self._host_servers,
            "plan": self._plan_get,
            "prompts": self._host_view(prompts),
            "prompt/get": self._host_view(prompt_get),
            "server/logs": self._host_view(server_logs),
            "elicitation/ask": self._sync(self._questions.ask),
            "elicitation/answer": self._sync(self._questions.answer),
            "elicitation/expire": self._sync(self._questions.expire),
            "elicitation/windowClosed": self._sync(self._questions.window_closed),
            "elicitations": self._sync(lambda message: self._questions.listed()),
            "history/load": self._sync(self._history.load),
            "history/changed": self._sync(self._history.changed),
            "history/refused": self._sync(self._history.refused),
            "history/removed": self._sync(self._history.removed),
            "tools/filter": self._tools_filter,
            "task/finished": self._sync(finished_task),
        }
        self._routes |= {kind: self._host_view(control) for kind, control in CONTROLS.items()}

    @staticmethod
    def _sync(answer: Callable[[Message], Answer]) -> Callable[[Message], Awaitable[Answer]]:
        async def route(message: Message) -> Answer:
            return answer(message)

        return route

    async def handle(self, message: Message) -> Answer:
        kind = message.get("type") if isinstance(message, dict) else None
        route = self._routes.get(kind) if isinstance(kind, str) else None
        try:
            if route is None:
                raise RequestError(McpErrorCode.METHOD_NOT_FOUND, f"unknown message type: {kind!r}")
            return await route(message)
        except RequestError as error:
            return error.to_wire()

    # --- what can run now ----------------------------------------------------------------------------

    def _mcp(self) -> McpCapability | None:
        return self._host if self._connected else None

    def _invalidate(self) -> None:
        self._mcp_tools.invalidate()
        self._registry = None

    def _registry_now(self) -> ToolRegistry:
        """The registry from what is known now; never waits (built-in and browser calls go through this)."""
        table, error = self._mcp_tools.table, self._mcp_tools.error
        built_from = self._registry_table
        if self._registry is None or built_from[0] is not table or built_from[1] is not error:
            self._registry = build_registry(
                emit=self._emit,
                plan=self._plan,
                gates=self._gates,
                servers=self._servers,
                config=self._config,
                mcp=self._mcp(),
                mcp_table=table,
                mcp_error=error,
                browser=self._browser,
                browser_tools=BROWSER_TOOLS,
            )
            self._registry_table = (table, error)
        return self._registry

    async def _registry_with_mcp_tools(self) -> ToolRegistry:
        if self._mcp() is not None and self._config.mcpTools:
            await self._mcp_tools.load(self._mcp, limit_ms=self._servers.tools_list_limit_ms())
        return self._registry_now()

    async def _mcp_path_registry(self) -> ToolRegistry:
        """For a name no built-in or browser tool answers: the worker (re)connects the host first, so an
        exited host is back before a call is refused as "not supported", then the MCP table is loaded."""
        if self._host is not None:
            self._apply_host_state(await self._ensure(self._host))
        return await self._registry_with_mcp_tools()

    async def _after_first_start(self, name: str, registry: ToolRegistry) -> ToolRegistry:
        """A name of a server the host is still starting (its listing answers within 1 s, before the tools
        are known): wait for that start, bounded by the server's `startupTimeoutSec`, then list again."""
        status = self._servers.down_server_for(name)
        if status is None or status["status"] != "starting" or self._mcp() is None:
            return registry
        try:
            await within(
                self._servers.started(status["name"]), self._servers.startup_limit_ms(status["name"])
            )
        except DeadlineExceeded:
            return registry
        self._invalidate()
        return await self._registry_with_mcp_tools()

    async def _ensure(self, host: HostLink) -> HostState:
        try:
            return await within(host.ensure(), HOST_ENSURE_LIMIT_MS)
        except DeadlineExceeded:
            return HostState(connected=False)

    def _apply_host_state(self, state: HostState) -> None:
        if state.connected != self._connected:
            self._connected = state.connected
            self._invalidate()
        self._servers.update(state.servers)

    def _host_view(
        self, view: Callable[[McpCapability, ServerBoard, Message], Awaitable[Answer]]
    ) -> Callable[[Message], Awaitable[Answer]]:
        """A message answered by one host request: the worker (re)connects the host first."""

        async def route(message: Message) -> Answer:
            if self._host is None:
                raise RequestError(McpErrorCode.SERVER_UNAVAILABLE, "there is no way to the native host here")
            self._apply_host_state(await self._ensure(self._host))
            mcp = self._mcp()
            if mcp is None:
                raise RequestError(
                    McpErrorCode.SERVER_UNAVAILABLE,
                    "the native host is not connected (run `tabgate-host doctor` to see why)",
                )
            return await view(mcp, self._servers, message)

        return route

    # --- messages ------------------------------------------------------------------------------------

    async def _tools(self, message: Message) -> Answer:
        registry = await self._registry_with_mcp_tools()
        answer: Answer = {"tools": [shown(tool) for tool in registry.offered()]}
        if self._mcp_tools.error is not None:
            answer["mcpError"] = self._mcp_tools.error
        return answer

    async def _tools_filter(self, message: Message) -> Answer:
        """The popup's and the options page's filter: the offered tools, and the disabled ones no longer
        offered, that match `text`, best first."""
        text = message.get("text")
        if not isinstance(text, str):
            raise RequestError(McpErrorCode.INVALID_PARAMS, "text must be a string")
        offered = self._registry_now().offered()
        names = {tool["name"] for tool in offered}
        gone = [{"name": name} for name in self._config.disabledTools if name not in names]
        return {"matches": ranked([*offered, *gone], text)}

    async def _dispatch(self, message: Message) -> Answer:
        """The contract §5 answer, with the call's `outcome` (core.calls.outcome): a request refused before
        anything ran is `rejected`."""
        try:
            return await self._dispatch_item(message)
        except RequestError as error:
            rejected: Answer = {**error.to_wire(), "outcome": Outcome.REJECTED.value}
            return rejected

    async def _dispatch_item(self, message: Message) -> Answer:
        try:
            item = parse_response_item(message.get("item"))
        except ItemError as error:
            raise RequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        turn = message.get("turn")
        if turn is not None and not isinstance(turn, str):
            raise RequestError(McpErrorCode.INVALID_PARAMS, "turn must be a string")
        try:
            target = None if message.get("target") is None else CallTarget.model_validate(message["target"])
        except ValidationError as error:
            raise RequestError(
                McpErrorCode.INVALID_PARAMS, f"target: {format_validation_error(error)}"
            ) from None
        registry = self._registry_now()
        name = tool_name_of(item)
        if not registry.knows(name):
            registry = await self._mcp_path_registry()
            if not registry.knows(name):
                registry = await self._after_first_start(name, registry)
        try:
            output = await handle_response_item(item, registry, turn, target)
        except Fatal as error:
            return {"fatal": error.message, "outcome": Outcome.FATAL.value}
        answer = dispatch_answer(output)
        if isinstance(output, FunctionCallOutputItem) and isinstance(output.output.pages, Pages):
            answer["pages"] = output.output.pages.to_wire()
        return answer

    async def _config_get(self, message: Message) -> Answer:
        return self._config.to_wire()

    async def _config_set(self, message: Message) -> Answer:
        try:
            config = self._config.patched(message.get("patch"))
        except ConfigError as error:
            raise RequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        return self._apply(config)

    async def _config_load(self, message: Message) -> Answer:
        try:
            config = load_stored_config(message.get("config"))
        except ConfigError as error:
            raise RequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        return self._apply(config)

    def _apply(self, config: ToolsConfig) -> Answer:
        self._config = config
        self._registry = None
        return config.to_wire()

    async def _host_state(self, message: Message) -> Answer:
        # The worker's host port connected, was replaced or went away: what the old host listed is gone.
        self._connected = message.get("connected") is True and self._host is not None
        self._servers.update(parse_statuses(message.get("servers")))
        self._invalidate()
        return {"ok": True}

    async def _host_servers(self, message: Message) -> Answer:
        # A server started, stopped or failed: its tools changed. Fetch now, so `tools` is fresh.
        self._servers.update(parse_statuses(message.get("servers")))
        self._invalidate()
        await self._registry_with_mcp_tools()
        return {"ok": True}

    async def _plan_get(self, message: Message) -> Answer:
        return self._plan.to_wire()
