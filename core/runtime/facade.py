"""`Service`: the façade the bridge calls for every runtime message (docs/architecture.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from core.browser.tool_table import BROWSER_TOOLS
from core.calls.capabilities import (
    BrowserCapability,
    McpCapability,
    McpErrorCode,
    McpRequestError,
)
from core.calls.deadline import DeadlineExceeded, within
from core.calls.errors import Fatal
from core.calls.items import FunctionCallOutputItem, ItemError, parse_response_item
from core.calls.outcome import Outcome, dispatch_answer
from core.calls.output import Pages
from core.host_link.elicitation import Questions
from core.host_link.host_views import prompt_get, prompts, server_logs
from core.host_link.mcp_tools import McpTool, McpToolDirectory
from core.host_link.server_controls import enable, restart, sign_in, sign_out
from core.host_link.servers import TIMEOUT_MARGIN_MS, HostLink, HostState, ServerBoard, parse_statuses
from core.mcp_apps.app_bridge import AppBridge
from core.messages import runtime_messages as m
from core.messages.emit import Emit
from core.messages.runtime_messages import Route, RuntimeMessage, parse_runtime_message, routed, wired
from core.records.history_book import HistoryBook
from core.records.resumed_tasks import finished_task
from core.runtime.catalog import build_registry
from core.runtime.config import ConfigError, ToolsConfig, load_stored_config
from core.runtime.running_calls import RunningCalls, stopped_answer
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
        self._running = RunningCalls()  # the person's, for the popup's Cancel
        self._mcp_tools = McpToolDirectory()
        self._registry: ToolRegistry | None = None
        # What the cached registry was built from: the MCP table and the error of its last fetch.
        self._registry_table: tuple[dict[str, McpTool] | None, str | None] = (None, None)
        apps = AppBridge(registry=self._registry_with_mcp_tools, mcp=self._mcp, servers=self._servers)
        self._routes: dict[type[RuntimeMessage], Route] = dict(
            [
                routed(m.AppView, apps.view),
                routed(m.AppRequest, apps.request),
                routed(m.AppTheme, self._sync(apps.theme_changed)),
                routed(m.Tools, self._tools),
                routed(m.Dispatch, self._dispatch),
                routed(
                    m.Cancel, self._sync(lambda message: {"cancelled": self._running.cancel(message.call_id)})
                ),
                routed(m.ConfigGet, self._config_get),
                routed(m.ConfigSet, self._config_set),
                routed(m.ConfigLoad, self._config_load),
                routed(m.HostStateMessage, self._host_state),
                routed(m.HostServers, self._host_servers),
                routed(m.Plan, self._plan_get),
                routed(m.Prompts, self._host_view(prompts)),
                routed(m.PromptGet, self._host_view(prompt_get)),
                routed(m.ServerLogs, self._host_view(server_logs)),
                routed(m.ServersSignIn, self._host_view(sign_in)),
                routed(m.ServersSignOut, self._host_view(sign_out)),
                routed(m.ServersEnable, self._host_view(enable)),
                routed(m.ServersRestart, self._host_view(restart)),
                routed(m.ElicitationAsk, self._sync(self._questions.ask)),
                routed(m.ElicitationAnswer, self._sync(self._questions.answer)),
                routed(m.ElicitationExpire, self._sync(self._questions.expire)),
                routed(m.ElicitationWindowClosed, self._sync(self._questions.window_closed)),
                routed(m.Elicitations, self._sync(lambda message: self._questions.listed())),
                routed(m.HistoryLoad, self._sync(self._history.load)),
                routed(m.HistoryChanged, self._sync(self._history.changed)),
                routed(m.HistoryRefused, self._sync(self._history.refused)),
                routed(m.HistoryRemoved, self._sync(self._history.removed)),
                routed(m.ToolsFilter, self._tools_filter),
                routed(m.TaskFinished, wired(self._sync(finished_task))),
            ]
        )

    @property
    def routes(self) -> Mapping[type[RuntimeMessage], Route]:
        """The messages the service answers, by model."""
        return self._routes

    @staticmethod
    def _sync[M](answer: Callable[[M], Answer]) -> Callable[[M], Awaitable[Answer]]:
        async def route(message: M) -> Answer:
            return answer(message)

        return route

    async def handle(self, message: Message | RuntimeMessage) -> Answer:
        try:
            parsed = message if isinstance(message, RuntimeMessage) else parse_runtime_message(message)
            route = self._routes.get(type(parsed))
            if route is None:
                raise McpRequestError(McpErrorCode.METHOD_NOT_FOUND, f"unknown message type: {parsed.TYPE!r}")
            return await route(parsed)
        except McpRequestError as error:
            return refusal(message, error)

    # --- what the agent gateway calls (core/agents/agent_calls.py) --------------------------------------

    def config(self) -> Answer:
        return self._config.to_wire()

    async def set_config(self, patch: Message) -> Answer:
        """The config changed by `patch` (the new config), or `{error}`."""
        return await self.handle(m.ConfigSet(type=m.ConfigSet.TYPE, patch=patch))

    async def offered_tools(self) -> list[Answer]:
        # As the registry lists them: what pages are shown of each tool (`shown`) costs ~1 ms for 8 tools
        # in CPython, and no agent reads it.
        return (await self._registry_with_mcp_tools()).offered()

    async def dispatch(self, message: m.Dispatch) -> Answer:
        return await self.handle(message)

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

    def _host_view[M: RuntimeMessage](
        self, view: Callable[[McpCapability, ServerBoard, M], Awaitable[Answer]]
    ) -> Callable[[M], Awaitable[Answer]]:
        """A message answered by one host request: the worker (re)connects the host first."""

        async def route(message: M) -> Answer:
            if self._host is None:
                raise McpRequestError(
                    McpErrorCode.SERVER_UNAVAILABLE, "there is no way to the native host here"
                )
            self._apply_host_state(await self._ensure(self._host))
            mcp = self._mcp()
            if mcp is None:
                raise McpRequestError(
                    McpErrorCode.SERVER_UNAVAILABLE,
                    "the native host is not connected (run `tabgate-host doctor` to see why)",
                )
            return await view(mcp, self._servers, message)

        return route

    # --- messages ------------------------------------------------------------------------------------

    async def _tools(self, message: m.Tools) -> Answer:
        registry = await self._registry_with_mcp_tools()
        answer: Answer = {"tools": [shown(tool) for tool in registry.offered()]}
        if self._mcp_tools.error is not None:
            answer["mcpError"] = self._mcp_tools.error
        return answer

    async def _tools_filter(self, message: m.ToolsFilter) -> Answer:
        """The popup's and the options page's filter: the offered tools, and the disabled ones no longer
        offered, that match `text`, best first."""
        text = message.text
        offered = self._registry_now().offered()
        names = {tool["name"] for tool in offered}
        gone = [{"name": name} for name in self._config.disabledTools if name not in names]
        return {"matches": ranked([*offered, *gone], text)}

    async def _dispatch(self, message: m.Dispatch) -> Answer:
        """The contract §5 answer, with the call's `outcome` (core.calls.outcome): a request refused before
        anything ran is `rejected`."""
        call_id = message.item.get("call_id") if isinstance(message.item, dict) else None
        call = call_id if isinstance(call_id, str) else ""
        task = asyncio.current_task() if call else None
        if task is not None:
            self._running.started(task, call)  # the popup's Cancel finds it by its call_id
        try:
            return await self._dispatch_item(message)
        except McpRequestError as error:
            rejected: Answer = {**error.to_wire(), "outcome": Outcome.REJECTED.value}
            return rejected
        except asyncio.CancelledError:
            if task is None or not self._running.stopped_by_person(task):
                raise
            return stopped_answer(call)
        finally:
            if task is not None:
                self._running.ended(task)

    async def _dispatch_item(self, message: m.Dispatch) -> Answer:
        try:
            item = parse_response_item(message.item)
        except ItemError as error:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        turn, target = message.turn, message.target
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

    async def _config_get(self, message: m.ConfigGet) -> Answer:
        return self._config.to_wire()

    async def _config_set(self, message: m.ConfigSet) -> Answer:
        try:
            config = self._config.patched(message.patch)
        except ConfigError as error:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        return self._apply(config)

    async def _config_load(self, message: m.ConfigLoad) -> Answer:
        try:
            config = load_stored_config(message.config)
        except ConfigError as error:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, str(error)) from None
        return self._apply(config)

    def _apply(self, config: ToolsConfig) -> Answer:
        self._config = config
        self._registry = None
        return config.to_wire()

    async def _host_state(self, message: m.HostStateMessage) -> Answer:
        # The worker's host port connected, was replaced or went away: what the old host listed is gone.
        self._connected = message.connected is True and self._host is not None
        self._servers.update(parse_statuses(message.servers))
        self._invalidate()
        return {"ok": True}

    async def _host_servers(self, message: m.HostServers) -> Answer:
        # A server started, stopped or failed: its tools changed. Fetch now, so `tools` is fresh.
        self._servers.update(parse_statuses(message.servers))
        self._invalidate()
        await self._registry_with_mcp_tools()
        return {"ok": True}

    async def _plan_get(self, message: m.Plan) -> Answer:
        return self._plan.to_wire()


def refusal(message: object, error: McpRequestError) -> Answer:
    """The answer to a message refused before it ran; a refused `dispatch` is a call that ended `rejected`."""
    answer = error.to_wire()
    is_dispatch = isinstance(message, m.Dispatch) or (
        isinstance(message, dict) and message.get("type") == m.Dispatch.TYPE
    )
    if is_dispatch:
        answer["outcome"] = Outcome.REJECTED.value
    return answer
