"""Model response items (what the model asked for) and response input items (what goes back), as on the wire.

Shapes follow codex's `ResponseItem` / `ResponseInputItem` serialisation (contract §5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.calls.validation import format_validation_error

# --- items the model produced ---------------------------------------------------------------------------


class _Item(BaseModel):
    # Items carry more than we read (id, status, ...); unknown fields are not an error.
    model_config = ConfigDict(extra="ignore", frozen=True)


class FunctionCallItem(_Item):
    type: Literal["function_call"]
    name: str
    arguments: str
    call_id: str


class CustomToolCallItem(_Item):
    type: Literal["custom_tool_call"]
    name: str
    input: str
    call_id: str


class LocalShellExecAction(_Item):
    type: Literal["exec"]
    command: list[str]
    timeout_ms: int | None = None
    working_directory: str | None = None
    env: dict[str, str] | None = None
    user: str | None = None


class LocalShellCallItem(_Item):
    type: Literal["local_shell_call"]
    id: str | None = None
    call_id: str | None = None
    action: LocalShellExecAction


type ResponseItem = FunctionCallItem | CustomToolCallItem | LocalShellCallItem

_ITEM_MODELS: dict[str, type[FunctionCallItem | CustomToolCallItem | LocalShellCallItem]] = {
    "function_call": FunctionCallItem,
    "custom_tool_call": CustomToolCallItem,
    "local_shell_call": LocalShellCallItem,
}


class ItemError(Exception):
    """The dispatched item is not a tool call, or not a valid one."""


def parse_response_item(raw: object) -> ResponseItem:
    if not isinstance(raw, dict):
        raise ItemError("item must be an object")
    kind = raw.get("type")
    model = _ITEM_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        expected = ", ".join(_ITEM_MODELS)
        raise ItemError(f"item type {kind!r} is not a tool call (expected one of: {expected})")
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ItemError(f"invalid {kind} item: {format_validation_error(error)}") from None


# --- items that go back to the model --------------------------------------------------------------------


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True)


class InputText(_Output):
    type: Literal["input_text"] = "input_text"
    text: str


class InputImage(_Output):
    type: Literal["input_image"] = "input_image"
    image_url: str


type ContentItem = Annotated[InputText | InputImage, Field(discriminator="type")]


class CallToolResult(BaseModel):
    """MCP `CallToolResult` as the host sends it (camelCase); fields we do not model pass through."""

    model_config = ConfigDict(extra="allow", frozen=True)

    content: list[dict[str, Any]]
    structuredContent: Any = None
    isError: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.wire

    @cached_property
    def wire(self) -> dict[str, Any]:
        """Only what was given: the host's result goes to the model unchanged. Made once: the call's end
        event and its answer carry the same dict (both leave Python as they are, never changed)."""
        return self.model_dump(exclude_unset=True)


def mcp_result_to_wire(result: CallToolResult | str) -> dict[str, Any]:
    """codex serialises `Result<CallToolResult, String>` as `{"Ok": ...}` or `{"Err": ...}`."""
    if isinstance(result, CallToolResult):
        return {"Ok": result.to_wire()}
    return {"Err": result}


# What goes back is built here, from values the core made itself: plain classes with their wire form
# written out (a model's validation and serializer cost a page's every call ~5 µs in CPython).


@dataclass(frozen=True, slots=True)
class FunctionCallOutputPayload:
    content: str
    content_items: tuple[ContentItem, ...] | None = None
    # Kept for the caller; codex never puts them on the wire.
    success: bool | None = None
    pages: Any = None  # core.calls.output.Pages of a paged listing

    def to_wire(self) -> str | list[dict[str, Any]]:
        if self.content_items:
            return [item.model_dump() for item in self.content_items]
        return self.content


@dataclass(frozen=True, slots=True)
class FunctionCallOutputItem:
    TYPE: ClassVar[str] = "function_call_output"

    call_id: str
    output: FunctionCallOutputPayload

    @property
    def success(self) -> bool | None:
        return self.output.success

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, "call_id": self.call_id, "output": self.output.to_wire()}


@dataclass(frozen=True, slots=True)
class CustomToolCallOutputItem:
    TYPE: ClassVar[str] = "custom_tool_call_output"

    call_id: str
    output: str
    success: bool | None = None  # kept for the caller, never on the wire

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, "call_id": self.call_id, "output": self.output}


@dataclass(frozen=True, slots=True)
class McpToolCallOutputItem:
    """`result` is codex's `Result<CallToolResult, String>`: a `CallToolResult` (Ok) or a message (Err)."""

    TYPE: ClassVar[str] = "mcp_tool_call_output"

    call_id: str
    result: CallToolResult | str

    @property
    def success(self) -> bool:
        return isinstance(self.result, CallToolResult) and not self.result.isError

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, "call_id": self.call_id, "result": mcp_result_to_wire(self.result)}


type ResponseInputItem = FunctionCallOutputItem | CustomToolCallOutputItem | McpToolCallOutputItem
