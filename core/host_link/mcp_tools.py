"""The MCP tool table: the host's `tools/list`, under names the core computes itself."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from core.calls.capabilities import McpCapability, McpRequestError
from core.calls.deadline import DeadlineExceeded
from core.calls.names import qualified_mcp_tool_name, raw_qualified_name
from core.calls.spec import ToolSpec, mcp_parameters_schema
from core.calls.validation import format_validation_error
from core.host_link.app_meta import ToolUi, read_tool_ui
from core.host_link.host_requests import ask_host
from core.messages.host_methods import TOOLS_LIST, AnyServerParams

log = logging.getLogger(__name__)


class HostTool(BaseModel):
    """One entry of the host's `tools/list` (contract §4); its `qualifiedName` is not trusted."""

    model_config = ConfigDict(extra="ignore")

    server: str
    name: str
    title: str | None = None
    description: str | None = None
    inputSchema: dict[str, Any]
    annotations: dict[str, Any] | None = None  # MCP ToolAnnotations: readOnlyHint, destructiveHint, …
    # False for the last known tools of a server that is down; still offered, and a call to one gets the
    # host's answer naming the server and why (contract §4, §6).
    available: bool = True
    ui: Any = None  # MCP Apps `_meta.ui`, checked by core/host_link/app_meta.py


@dataclass(frozen=True, slots=True)
class McpTool:
    server: str
    tool: str
    spec: ToolSpec
    available: bool = True
    title: str | None = None
    annotations: dict[str, Any] | None = None
    ui: ToolUi | None = None  # MCP Apps: the tool's View and visibility


class McpToolListError(Exception):
    pass


def build_mcp_tool_table(result: Any) -> dict[str, McpTool]:
    """Qualified name → tool; the first of two tools with the same name wins, as in codex."""
    entries = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(entries, list):
        raise McpToolListError("tools/list failed: the answer has no `tools` list")
    table: dict[str, McpTool] = {}
    seen_raw: set[str] = set()
    for entry in entries:
        try:
            tool = HostTool.model_validate(entry)
        except ValidationError as error:
            log.warning("skipping invalid MCP tool %r: %s", entry, format_validation_error(error))
            continue
        raw = raw_qualified_name(tool.server, tool.name)
        name = qualified_mcp_tool_name(tool.server, tool.name)
        if raw in seen_raw or name in table:
            log.warning("skipping duplicated tool %s", raw)
            continue
        seen_raw.add(raw)
        spec = ToolSpec(
            name=name,
            description=tool.description or "",
            parameters=mcp_parameters_schema(tool.inputSchema),
            # codex offers every MCP tool without parallel support.
            supports_parallel=False,
        )
        ui = read_tool_ui(tool.ui, raw)
        table[name] = McpTool(tool.server, tool.name, spec, tool.available, tool.title, tool.annotations, ui)
    return dict(sorted(table.items()))


MAX_STALE_FETCHES = 5


class McpToolDirectory:
    """Holds the current table; fetched lazily, dropped whenever the host or its servers change."""

    def __init__(self) -> None:
        self.table: dict[str, McpTool] | None = None
        self.error: str | None = None
        self._generation = 0
        self._lock = asyncio.Lock()

    def invalidate(self) -> None:
        self.table = None
        self.error = None
        # A fetch still running for the old host must not install its answer.
        self._generation += 1

    async def load(self, current: Callable[[], McpCapability | None], *, limit_ms: int) -> None:
        """Fetch the table unless it is there; a failure is kept in `error` and retried next time.

        When the host or its servers change while the fetch runs, its answer is stale and is fetched again:
        right after a (re)connect the server statuses change several times in quick succession."""
        async with self._lock:
            for _ in range(MAX_STALE_FETCHES):
                mcp = current()  # the capability of now: a retry must not ask a host that was replaced
                if self.table is not None or mcp is None:
                    return
                generation = self._generation
                try:
                    table = build_mcp_tool_table(await _list_tools(mcp, limit_ms))
                except McpToolListError as error:
                    if generation == self._generation:
                        self.error = str(error)
                        return
                    continue
                if generation == self._generation:
                    self.table, self.error = table, None
                    return


async def _list_tools(mcp: McpCapability, limit_ms: int) -> Any:
    try:
        return await ask_host(mcp, TOOLS_LIST, AnyServerParams(), limit_ms=limit_ms)
    except (McpRequestError, DeadlineExceeded) as error:
        raise McpToolListError(f"tools/list failed: {error}") from None
