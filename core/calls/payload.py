"""Tool payloads (codex `ToolPayload`) and the tool call the router builds from a model response item."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from core.calls.tab_scope import CallTarget


class PayloadKind(Enum):
    FUNCTION = "function"
    CUSTOM = "custom"
    LOCAL_SHELL = "local_shell"
    MCP = "mcp"


@dataclass(frozen=True, slots=True)
class FunctionPayload:
    kind: ClassVar[PayloadKind] = PayloadKind.FUNCTION
    arguments: str


@dataclass(frozen=True, slots=True)
class CustomPayload:
    kind: ClassVar[PayloadKind] = PayloadKind.CUSTOM
    input: str


@dataclass(frozen=True, slots=True)
class ShellToolCallParams:
    """codex `ShellToolCallParams`; the fields a `local_shell_call` has no value for get codex's defaults."""

    command: tuple[str, ...]
    workdir: str | None
    timeout_ms: int | None
    sandbox_permissions: str | None = None
    prefix_rule: str | None = None
    justification: str | None = None


@dataclass(frozen=True, slots=True)
class LocalShellPayload:
    kind: ClassVar[PayloadKind] = PayloadKind.LOCAL_SHELL
    params: ShellToolCallParams


@dataclass(frozen=True, slots=True)
class McpPayload:
    kind: ClassVar[PayloadKind] = PayloadKind.MCP
    server: str
    tool: str
    raw_arguments: str


type ToolPayload = FunctionPayload | CustomPayload | LocalShellPayload | McpPayload


@dataclass(frozen=True, slots=True)
class ToolCall:
    tool_name: str
    call_id: str
    payload: ToolPayload
    # The tabs and site the caller may use (an agent's call through the gateway); None: every tab, unchecked.
    target: CallTarget | None = None
