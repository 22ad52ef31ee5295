"""A dispatch answer (contract §5) as the MCP `CallToolResult` an agent receives (contract §8).

`function_call_output` text → one text block; its content items → text and image blocks; `success: false` →
`isError`; `mcp_tool_call_output` → its own `CallToolResult` (or the error text of `Err`); `{fatal}` →
`isError` with `Fatal error: …`; a refused request (`{error}`) → `isError` with its message.
"""

from __future__ import annotations

import re
from typing import Any

type Json = dict[str, Any]

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)


def error_result(text: str) -> Json:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _content_item(item: Any) -> Json:
    if isinstance(item, dict) and item.get("type") == "input_image":
        match = _DATA_URL.match(str(item.get("image_url", "")))
        if match is not None:
            return {"type": "image", "data": match["data"], "mimeType": match["mime"]}
        return {"type": "text", "text": f"[image: {item.get('image_url', '')}]"}
    if isinstance(item, dict) and item.get("type") == "input_text":
        return {"type": "text", "text": str(item.get("text", ""))}
    return {"type": "text", "text": str(item)}


def call_tool_result(answer: Json) -> Json:
    if "fatal" in answer:
        return error_result(f"Fatal error: {answer['fatal']}")
    if "error" in answer:
        error = answer["error"]
        message = error.get("message") if isinstance(error, dict) else error
        return error_result(str(message))
    output = answer.get("output")
    if not isinstance(output, dict):
        return error_result("Tabgate sent an answer without an output")
    if output.get("type") == "mcp_tool_call_output":
        result = output.get("result", {})
        if isinstance(result, dict) and isinstance(result.get("Ok"), dict):
            return dict(result["Ok"])
        return error_result(
            str(result.get("Err", "the MCP tool failed") if isinstance(result, dict) else result)
        )
    body = output.get("output", "")
    content = (
        [_content_item(item) for item in body]
        if isinstance(body, list)
        else [{"type": "text", "text": str(body)}]
    )
    return {"content": content, "isError": answer.get("success") is False}
