"""The tool registry (codex `registry.rs`): name → handler, payload-kind check, parallel gate, guards."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from core.calls.errors import Fatal
from core.calls.output import ToolOutput
from core.calls.payload import CustomPayload, PayloadKind, ToolCall
from core.calls.spec import ToolSpec
from core.host_link.mcp_tools import McpTool
from core.host_link.servers import ServerBoard
from core.tools.guards import McpAccess, disabled_tool, server_down, unknown_tool
from core.tools.parallel import TurnGates


class ToolHandler(Protocol):
    @property
    def accepts(self) -> frozenset[PayloadKind]:
        """The payload kinds this handler can take; any other is a fatal routing error."""
        ...

    async def handle(self, call: ToolCall) -> ToolOutput: ...


class ToolSource(StrEnum):
    BUILTIN = "builtin"
    BROWSER = "browser"
    MCP = "mcp"


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    spec: ToolSpec
    handler: ToolHandler
    source: ToolSource
    mcp: McpTool | None = None
    # False for tools that answer when called but are not worth offering (local_shell).
    offered: bool = True
    # Whether this call may run beside the others of its turn, when that depends on the call (a browser
    # tool's action: reads run together, acting runs alone); None: the spec's `supports_parallel`.
    parallel: Callable[[ToolCall], bool] | None = None


class ToolRegistry:
    """An immutable snapshot of what can run now; rebuilt when capabilities, config or MCP tools change."""

    def __init__(
        self,
        tools: Iterable[RegisteredTool],
        *,
        access: McpAccess,
        disabled: Iterable[str],
        gates: TurnGates,
        servers: ServerBoard,
        mcp_error: str | None = None,
    ) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        for tool in tools:
            # Registration order is the lookup order (built-ins, browser, MCP): the first name wins.
            self._tools.setdefault(tool.spec.name, tool)
        self._access = access
        self._disabled = frozenset(disabled)
        self._gates = gates
        self._servers = servers
        self._mcp_error = mcp_error
        self.mcp_tools: dict[str, McpTool] = {
            name: tool.mcp for name, tool in self._tools.items() if tool.mcp is not None
        }
        self._offered = [
            _offer(tool)
            for tool in self._tools.values()
            if tool.offered and tool.spec.name not in self._disabled
        ]

    def offered(self) -> list[dict[str, Any]]:
        return list(self._offered)

    def knows(self, name: str) -> bool:
        """Whether this registry answers `name` by itself; any other name falls through to the MCP path."""
        return name in self._tools or name in self._disabled

    async def dispatch(self, call: ToolCall, turn: str | None = None) -> ToolOutput:
        name = call.tool_name
        if name in self._disabled:
            raise disabled_tool(name)
        tool = self._tools.get(name)
        if tool is None:
            down = self._servers.down_server_for(name) if self._access is McpAccess.ENABLED else None
            if down is not None:
                raise server_down(down)
            custom = isinstance(call.payload, CustomPayload)
            raise unknown_tool(name, self._access, custom=custom, mcp_error=self._mcp_error)
        if call.payload.kind not in tool.handler.accepts:
            raise Fatal(f"tool {name} invoked with incompatible payload")
        parallel = tool.spec.supports_parallel if tool.parallel is None else tool.parallel(call)
        async with self._gates.hold(turn, parallel=parallel):
            return await tool.handler.handle(call)


def _offer(tool: RegisteredTool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": tool.spec.name,
        "source": tool.source.value,
        "description": tool.spec.description,
        "parameters": tool.spec.parameters,
        "supportsParallel": tool.spec.supports_parallel,
    }
    if tool.mcp is not None:
        entry["server"] = tool.mcp.server
        if tool.mcp.title is not None:
            entry["title"] = tool.mcp.title
        if tool.mcp.annotations is not None:
            entry["annotations"] = tool.mcp.annotations
        if not tool.mcp.available:
            entry["available"] = False
        if tool.mcp.ui is not None:
            entry["ui"] = tool.mcp.ui.model_dump()
    return entry
