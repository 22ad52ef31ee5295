"""`Service`: the façade the bridge calls for every runtime message (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from core.browser.registry import BROWSER_TOOLS
from core.capabilities import BrowserCapability, McpCapability
from core.catalog import build_registry
from core.config import ConfigError, ToolsConfig, load_config
from core.errors import Fatal
from core.events import Emit
from core.handlers.plan import PlanBoard
from core.items import ItemError, parse_response_item
from core.mcp_tools import McpTool, McpToolDirectory
from core.parallel import ParallelGate
from core.registry import ToolRegistry
from core.router import handle_response_item

type Message = dict[str, Any]
type Answer = dict[str, Any]


class Service:
    def __init__(self, *, emit: Emit, browser: BrowserCapability | None = None) -> None:
        self._emit = emit
        self._browser = browser
        self._mcp: McpCapability | None = None
        self._config = ToolsConfig()
        self._plan = PlanBoard()
        # One gate for the service's lifetime: calls started under an older registry still count.
        self._gate = ParallelGate()
        self._mcp_tools = McpToolDirectory()
        self._registry: ToolRegistry | None = None
        self._registry_table: dict[str, McpTool] | None = None
        self._routes: dict[str, Callable[[Message], Awaitable[Answer]]] = {
            "tools": self._tools,
            "dispatch": self._dispatch,
            "config/get": self._config_get,
            "config/set": self._config_set,
            "config/load": self._config_load,
            "host/servers": self._host_servers,
            "plan": self._plan_get,
        }

    def set_mcp(self, mcp: McpCapability | None) -> None:
        """The native host connected (its capability) or went away (`None`)."""
        self._mcp = mcp
        self._mcp_tools.invalidate()
        self._registry = None

    async def handle(self, message: Message) -> Answer:
        kind = message.get("type") if isinstance(message, dict) else None
        route = self._routes.get(kind) if isinstance(kind, str) else None
        if route is None:
            return {"error": f"unknown message type: {kind!r}"}
        return await route(message)

    async def _current_registry(self) -> ToolRegistry:
        if self._mcp is not None and self._config.mcpTools:
            await self._mcp_tools.load(lambda: self._mcp)
        table = self._mcp_tools.table
        if self._registry is None or self._registry_table is not table:
            self._registry = build_registry(
                emit=self._emit,
                plan=self._plan,
                gate=self._gate,
                config=self._config,
                mcp=self._mcp,
                mcp_table=table,
                browser=self._browser,
                browser_tools=BROWSER_TOOLS,
            )
            self._registry_table = table
        return self._registry

    async def _tools(self, message: Message) -> Answer:
        registry = await self._current_registry()
        answer: Answer = {"tools": registry.offered()}
        if self._mcp_tools.error is not None:
            answer["mcpError"] = self._mcp_tools.error
        return answer

    async def _dispatch(self, message: Message) -> Answer:
        try:
            item = parse_response_item(message.get("item"))
        except ItemError as error:
            return {"error": str(error)}
        registry = await self._current_registry()
        try:
            output = await handle_response_item(item, registry)
        except Fatal as error:
            return {"fatal": error.message}
        return {"output": output.to_wire(), "success": output.success}

    async def _config_get(self, message: Message) -> Answer:
        return self._config.to_wire()

    async def _config_set(self, message: Message) -> Answer:
        try:
            config = self._config.patched(message.get("patch"))
        except ConfigError as error:
            return {"error": str(error)}
        return self._apply(config)

    async def _config_load(self, message: Message) -> Answer:
        try:
            config = load_config(message.get("config"))
        except ConfigError as error:
            return {"error": str(error)}
        return self._apply(config)

    def _apply(self, config: ToolsConfig) -> Answer:
        self._config = config
        self._registry = None
        return config.to_wire()

    async def _host_servers(self, message: Message) -> Answer:
        # A server started, stopped or failed: its tools changed. Fetch now, so `tools` is fresh.
        self._mcp_tools.invalidate()
        self._registry = None
        await self._current_registry()
        return {"ok": True}

    async def _plan_get(self, message: Message) -> Answer:
        return self._plan.to_wire()
