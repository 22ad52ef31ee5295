"""What a tool handler returns (codex `ToolOutput`), and how it becomes the item that goes back."""

from __future__ import annotations

from dataclasses import dataclass

from core.calls.items import (
    CallToolResult,
    ContentItem,
    CustomToolCallOutputItem,
    FunctionCallOutputItem,
    FunctionCallOutputPayload,
    McpToolCallOutputItem,
    ResponseInputItem,
)


@dataclass(frozen=True, slots=True)
class FunctionOutput:
    content: str
    success: bool | None = True
    content_items: tuple[ContentItem, ...] | None = None
    # A listing that comes in pages, for the popup's pager (never on the model's wire).
    pages: Pages | None = None


@dataclass(frozen=True, slots=True)
class Pages:
    """A paged listing's place: the cursor of the next page, None on the last."""

    next_cursor: str | None

    def to_wire(self) -> dict[str, str | None]:
        return {"next": self.next_cursor}


@dataclass(frozen=True, slots=True)
class McpOutput:
    """An MCP tool's result: a `CallToolResult` (Ok) or the message of the failed call (Err)."""

    result: CallToolResult | str


type ToolOutput = FunctionOutput | McpOutput


def response_item(call_id: str, output: ToolOutput, *, custom: bool) -> ResponseInputItem:
    """codex `ToolOutput::into_response`: a custom call gets a custom output, the rest a function output."""
    if isinstance(output, McpOutput):
        return McpToolCallOutputItem(call_id=call_id, result=output.result)
    if custom:
        return CustomToolCallOutputItem(call_id=call_id, output=output.content, success=output.success)
    payload = FunctionCallOutputPayload(
        content=output.content,
        content_items=output.content_items,
        success=output.success,
        pages=output.pages,
    )
    return FunctionCallOutputItem(call_id=call_id, output=payload)
