"""What an agent receives for a call (contract §8, interface A): an MCP `CallToolResult`, built here only.

A dispatch answer (contract §5) becomes one: `function_call_output` text → one text block, its content
items → text and image blocks; `mcp_tool_call_output` → the server's own result (an `Err` → its text);
`{fatal}` → "Fatal error: …"; a refused call → why. `isError` is the answer's `outcome` (core.calls.outcome)
other than done: the agent reads the value history and the activity log read.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.calls.outcome import Outcome

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)


class TextContent(BaseModel):
    model_config = ConfigDict(frozen=True)
    type: Literal["text"] = "text"
    text: str


class ImageContent(BaseModel):
    model_config = ConfigDict(frozen=True)
    type: Literal["image"] = "image"
    data: str
    mimeType: str


type Block = Annotated[TextContent | ImageContent, Field(discriminator="type")]
# An MCP server's content items stay as they came (their annotations and _meta too); ours are Blocks.
type Content = Annotated[dict[str, Any] | Block, Field(union_mode="left_to_right")]


class AgentCallResult(BaseModel):
    """The MCP `CallToolResult` the host relays unchanged; an MCP server's extra fields pass through."""

    model_config = ConfigDict(extra="allow", frozen=True)

    content: list[Content]
    isError: bool = False
    structuredContent: Any = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


def _block(item: Any) -> TextContent | ImageContent:
    if isinstance(item, dict) and item.get("type") == "input_image":
        match = _DATA_URL.match(str(item.get("image_url", "")))
        if match is not None:
            return ImageContent(data=match["data"], mimeType=match["mime"])
        return TextContent(text=f"[image: {item.get('image_url', '')}]")
    if isinstance(item, dict) and item.get("type") == "input_text":
        return TextContent(text=str(item.get("text", "")))
    return TextContent(text=str(item))


def from_dispatch(answer: dict[str, Any]) -> AgentCallResult:
    """The agent's result for the core's own dispatch answer (which carries its `outcome`)."""
    failed = Outcome(answer["outcome"]).failed
    if "fatal" in answer:
        return _text(f"Fatal error: {answer['fatal']}", failed)
    if "error" in answer:
        error = answer["error"]
        return _text(str(error.get("message") if isinstance(error, dict) else error), failed)
    output = answer.get("output")
    if not isinstance(output, dict):
        return _text("Tabgate's core answered without an output", True)
    if output.get("type") == "mcp_tool_call_output":
        result = output.get("result")
        if isinstance(result, dict) and isinstance(result.get("Ok"), dict):
            # The server's own result; its isError is what decided the outcome.
            return AgentCallResult.model_validate(result["Ok"])
        failure = result.get("Err") if isinstance(result, dict) else result
        return _text(str(failure or "the MCP tool failed"), failed)
    body = output.get("output", "")
    blocks: list[Content] = (
        [_block(item) for item in body] if isinstance(body, list) else [TextContent(text=str(body))]
    )
    return AgentCallResult(content=blocks, isError=failed)


def _text(text: str, failed: bool) -> AgentCallResult:
    return AgentCallResult(content=[TextContent(text=text)], isError=failed)
