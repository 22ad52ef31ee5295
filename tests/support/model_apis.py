"""The four model APIs real agent CLIs speak, as thin adapters of the scripted model
(tests/support/scripted_model.py): read a request (tools offered, tool results sent back), write a step as the
API streams it. codex: OpenAI Responses; Claude Code: Anthropic Messages; Gemini CLI: Gemini
`streamGenerateContent?alt=sse`; opencode: OpenAI Chat Completions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from tests.support.scripted_model import Call, Step, Turn, sse

SSE: Final = "text/event-stream"
JSON: Final = "application/json"


def as_text(value: object) -> str:
    """A tool result as text, whatever shape the client sent it in (a string, content blocks, an object)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _arguments(step: Call) -> str:
    return json.dumps(step.arguments)


@dataclass(frozen=True)
class Responses:
    """OpenAI Responses over SSE (codex, through a `model_providers` entry with `wire_api = "responses"`)."""

    def serves(self, path: str) -> bool:
        return path.split("?")[0].endswith("/responses")

    def side_answer(self, path: str) -> dict[str, Any] | None:
        return {"data": [], "models": []} if path.split("?")[0].endswith("/models") else None

    def read(self, path: str, body: dict[str, Any]) -> Turn:
        # codex groups each MCP server's tools in a namespace (`mcp__tabgate`): offered as `namespace.tool`
        tools = [
            f"{tool['name']}.{inner.get('name', '')}" if inner else tool.get("name", "")
            for tool in body.get("tools", [])
            if isinstance(tool, dict)
            for inner in ((tool.get("tools") or [{}]) if tool.get("type") == "namespace" else [{}])
            if isinstance(inner, dict)
        ]
        items = [item for item in body.get("input", []) if isinstance(item, dict)]
        results = [
            as_text(item.get("output")) for item in items if item.get("type") == "function_call_output"
        ]
        return Turn(tools, results, bool(body.get("stream", True)))

    def reply(self, step: Step, tool: str | None, call_id: str, stream: bool) -> tuple[str, bytes]:
        if isinstance(step, Call):
            namespace, _, name = (tool or "").rpartition(".")
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{call_id}",
                "call_id": call_id,
                "name": name,
                "arguments": _arguments(step),
            }
            if namespace:
                item["namespace"] = namespace
        else:
            content = [{"type": "output_text", "text": step.text, "annotations": []}]
            item = {"type": "message", "id": f"msg_{call_id}", "role": "assistant", "content": content}
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        response = {"id": f"resp_{call_id}", "object": "response", "status": "completed", "usage": usage}
        return SSE, sse(
            [
                ("response.created", {"type": "response.created", "response": {**response, "output": []}}),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {"type": "response.completed", "response": {**response, "output": [item]}},
                ),
            ]
        )


@dataclass(frozen=True)
class Messages:
    """Anthropic Messages over SSE (Claude Code, through ANTHROPIC_BASE_URL)."""

    def serves(self, path: str) -> bool:
        return path.split("?")[0].endswith("/v1/messages")

    def side_answer(self, path: str) -> dict[str, Any] | None:
        return {"input_tokens": 1} if path.split("?")[0].endswith("/count_tokens") else None

    def read(self, path: str, body: dict[str, Any]) -> Turn:
        tools = [tool.get("name", "") for tool in body.get("tools", []) if isinstance(tool, dict)]
        results = [
            as_text(block.get("content"))
            for message in body.get("messages", [])
            if isinstance(message, dict) and isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        return Turn(tools, results, bool(body.get("stream", False)))

    def reply(self, step: Step, tool: str | None, call_id: str, stream: bool) -> tuple[str, bytes]:
        if isinstance(step, Call):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_{call_id}",
                "name": tool,
                "input": step.arguments,
            }
            delta = {"type": "input_json_delta", "partial_json": _arguments(step)}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": step.text}
            delta = {"type": "text_delta", "text": step.text}
            stop = "end_turn"
        usage = {"input_tokens": 1, "output_tokens": 1}
        message = {
            "id": f"msg_{call_id}",
            "type": "message",
            "role": "assistant",
            "model": "scripted",
            "stop_sequence": None,
            "usage": usage,
        }
        if not stream:
            return JSON, json.dumps({**message, "content": [block], "stop_reason": stop}).encode()
        empty = {**block, "input": {}} if isinstance(step, Call) else {**block, "text": ""}
        return SSE, sse(
            [
                (
                    "message_start",
                    {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
                ),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": empty}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 1},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )


@dataclass(frozen=True)
class Gemini:
    """Gemini `…:streamGenerateContent?alt=sse` (Gemini CLI, through GOOGLE_GEMINI_BASE_URL)."""

    def serves(self, path: str) -> bool:
        return ":streamGenerateContent" in path or ":generateContent" in path

    def side_answer(self, path: str) -> dict[str, Any] | None:
        if ":countTokens" in path:
            return {"totalTokens": 1}
        return {"models": []} if path.split("?")[0].endswith("/models") else None

    def read(self, path: str, body: dict[str, Any]) -> Turn:
        tools = [
            declaration.get("name", "")
            for tool in body.get("tools", [])
            if isinstance(tool, dict)
            for declaration in tool.get("functionDeclarations", [])
            if isinstance(declaration, dict)
        ]
        results = [
            as_text(part["functionResponse"].get("response"))
            for content in body.get("contents", [])
            if isinstance(content, dict)
            for part in content.get("parts", [])
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        ]
        return Turn(tools, results, ":streamGenerateContent" in path)

    def reply(self, step: Step, tool: str | None, call_id: str, stream: bool) -> tuple[str, bytes]:
        part = (
            {"functionCall": {"name": tool, "args": step.arguments}}
            if isinstance(step, Call)
            else {"text": step.text}
        )
        answer = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            "modelVersion": "scripted",
        }
        return (SSE, sse([(None, answer)])) if stream else (JSON, json.dumps(answer).encode())


@dataclass(frozen=True)
class ChatCompletions:
    """OpenAI Chat Completions over SSE (opencode, through an `@ai-sdk/openai-compatible` provider)."""

    def serves(self, path: str) -> bool:
        return path.split("?")[0].endswith("/chat/completions")

    def side_answer(self, path: str) -> dict[str, Any] | None:
        return {"object": "list", "data": []} if path.split("?")[0].endswith("/models") else None

    def read(self, path: str, body: dict[str, Any]) -> Turn:
        tools = [
            tool["function"].get("name", "")
            for tool in body.get("tools", [])
            if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
        ]
        results = [
            as_text(message.get("content"))
            for message in body.get("messages", [])
            if isinstance(message, dict) and message.get("role") == "tool"
        ]
        return Turn(tools, results, bool(body.get("stream", False)))

    def reply(self, step: Step, tool: str | None, call_id: str, stream: bool) -> tuple[str, bytes]:
        if isinstance(step, Call):
            call = {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": tool, "arguments": _arguments(step)},
            }
            delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": step.text}, "stop"
        chunk = {
            "id": f"chat_{call_id}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "scripted",
        }
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not stream:
            message = {k: v for k, v in delta.items() if k != "index"}
            choice = {"index": 0, "message": message, "finish_reason": finish}
            return JSON, json.dumps(
                {**chunk, "object": "chat.completion", "choices": [choice], "usage": usage}
            ).encode()
        return SSE, sse(
            [
                (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
                (
                    None,
                    {
                        **chunk,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                        "usage": usage,
                    },
                ),
                (None, "[DONE]"),
            ]
        )
