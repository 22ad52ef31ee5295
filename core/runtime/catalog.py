"""Which tools exist right now: built-ins, then browser tools, then MCP tools, from what the core has."""

from __future__ import annotations

from core.browser.tool_table import BrowserToolRegistry
from core.calls.capabilities import BrowserCapability, McpCapability
from core.host_link.mcp_tools import McpTool
from core.host_link.servers import ServerBoard
from core.messages.emit import Emit
from core.runtime.config import ToolsConfig
from core.tools.guards import mcp_access
from core.tools.handlers.browser import BrowserHandler
from core.tools.handlers.local_shell import LOCAL_SHELL, LocalShellHandler
from core.tools.handlers.mcp import McpHandler, McpToolCall
from core.tools.handlers.mcp_resource import RESOURCE_TOOL_SPECS, McpResourceHandler
from core.tools.handlers.plan import UPDATE_PLAN, PlanBoard, PlanHandler
from core.tools.parallel import TurnGates
from core.tools.registry import RegisteredTool, ToolRegistry, ToolSource


def build_registry(
    *,
    emit: Emit,
    plan: PlanBoard,
    gates: TurnGates,
    servers: ServerBoard,
    config: ToolsConfig,
    mcp: McpCapability | None,
    mcp_table: dict[str, McpTool] | None,
    mcp_error: str | None = None,
    browser: BrowserCapability | None,
    browser_tools: BrowserToolRegistry,
) -> ToolRegistry:
    tools = [
        RegisteredTool(UPDATE_PLAN, PlanHandler(emit, plan), ToolSource.BUILTIN),
        RegisteredTool(LOCAL_SHELL, LocalShellHandler(), ToolSource.BUILTIN, offered=False),
    ]
    # Without a usable MCP path the resource tools and MCP tools are simply absent; the registry's
    # guard then answers their names with the "not supported" / "mcpTools disabled" messages.
    if mcp is not None and config.mcpTools:
        resources = McpResourceHandler(mcp, emit, servers)
        tools += [RegisteredTool(spec, resources, ToolSource.BUILTIN) for spec in RESOURCE_TOOL_SPECS]
    if browser is not None:
        for spec in browser_tools:
            runs = BrowserHandler(spec, browser, config.uploadDirs, mcp)
            tools.append(RegisteredTool(spec.tool_spec, runs, ToolSource.BROWSER, parallel=runs.parallel))
    if mcp is not None and config.mcpTools and mcp_table:
        handler = McpHandler(McpToolCall(mcp, emit, servers))
        tools += [RegisteredTool(tool.spec, handler, ToolSource.MCP, mcp=tool) for tool in mcp_table.values()]
    access = mcp_access(host_connected=mcp is not None, mcp_tools_enabled=config.mcpTools)
    return ToolRegistry(
        tools,
        access=access,
        disabled=config.disabledTools,
        gates=gates,
        servers=servers,
        mcp_error=mcp_error if mcp is not None and config.mcpTools else None,
    )
