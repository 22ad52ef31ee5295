"""What history keeps of one dispatch (contract §5 history entry): its status, a bounded copy of the answer.

The service worker stores `record_for(answer)` as it is; Python decides both the outcome and the shortening,
so a 60 MB answer costs one linear pass here and at most `MAX_STORED_BYTES` in `chrome.storage.session`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

# A stored answer over this size (compact JSON, UTF-8) is shortened.
MAX_STORED_BYTES = 256 * 1024
# Room left under the bound for the notes and for what JSON escaping adds to the cut text.
_NOTES_ROOM = 8 * 1024
# Passes of "cut harder" before the answer is kept only as a cut JSON text (answers made of structure).
_MAX_PASSES = 4

type Status = Literal["done", "failed", "fatal", "rejected"]
type Json = Any

# Content items that carry binary data: MCP `image`/`audio` (`data`), the model's `input_image` (`image_url`).
_BINARY_ITEMS = {"image": "text", "audio": "text", "input_image": "input_text"}


def status_of(answer: dict[str, Any]) -> Status:
    if "error" in answer:
        return "rejected"
    if "fatal" in answer:
        return "fatal"
    if answer.get("success") is False:
        return "failed"
    return "done"


def record_for(answer: dict[str, Any]) -> dict[str, Any]:
    """`{status, answer, truncated?: {bytes}}`: `answer` as it is when it fits, shortened otherwise."""
    record: dict[str, Any] = {"status": status_of(answer)}
    size = _json_size(answer)
    if size <= MAX_STORED_BYTES:
        record["answer"] = answer
        return record
    record["answer"] = shorten(answer, MAX_STORED_BYTES)
    record["truncated"] = {"bytes": size}
    return record


def shorten(value: Json, limit: int) -> Json:
    """A copy of `value` whose compact JSON fits in `limit` bytes: binary content dropped and long strings
    cut, each with a note; every pass is linear in the size of `value`."""
    kept = _drop_binary(value)
    lengths: list[int] = []
    _string_lengths(kept, lengths)
    structure = _json_size(kept) - sum(lengths)
    budget = limit - _NOTES_ROOM - structure
    for _ in range(_MAX_PASSES):
        if budget <= 0:
            break
        candidate = _cut_strings(kept, _cap_for(lengths, budget))
        size = _json_size(candidate)
        if size <= limit:
            return candidate
        budget -= size - limit + _NOTES_ROOM
    # Mostly structure (a huge array of numbers, say): keep the start of its JSON text.
    text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
    return _cut_text(text, max(0, limit - _NOTES_ROOM))


def _json_size(value: Json) -> int:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _drop_binary(value: Json) -> Json:
    if isinstance(value, dict):
        kind = value.get("type")
        if isinstance(kind, str) and kind in _BINARY_ITEMS:
            size = _json_size(value)
            return {"type": _BINARY_ITEMS[kind], "text": f"[{kind} of {size} bytes dropped from history]"}
        if "blob" in value and isinstance(value["blob"], str):
            # An embedded resource's binary contents (MCP `BlobResourceContents`).
            note = f"[blob of {len(value['blob'])} bytes dropped from history]"
            return {key: _drop_binary(item) for key, item in value.items() if key != "blob"} | {"text": note}
        return {key: _drop_binary(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_drop_binary(item) for item in value]
    return value


def _string_lengths(value: Json, into: list[int]) -> None:
    if isinstance(value, str):
        into.append(len(value))
    elif isinstance(value, dict):
        for item in value.values():
            _string_lengths(item, into)
    elif isinstance(value, list):
        for item in value:
            _string_lengths(item, into)


def _cap_for(lengths: list[int], budget: int) -> int:
    """The largest length `cap` with sum(min(length, cap)) <= budget: short strings stay whole and the
    long ones share what is left equally."""
    remaining = budget
    ordered = sorted(lengths)
    for index, length in enumerate(ordered):
        others = len(ordered) - index
        if length * others > remaining:
            return max(0, remaining // others)
        remaining -= length
    return ordered[-1] if ordered else 0


def _cut_strings(value: Json, cap: int) -> Json:
    if isinstance(value, str):
        return _cut_text(value, cap) if len(value) > cap else value
    if isinstance(value, dict):
        return {key: _cut_strings(item, cap) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_strings(item, cap) for item in value]
    return value


def _cut_text(text: str, keep: int) -> str:
    return f"{text[:keep]}\n[{len(text) - keep} of {len(text)} characters cut from history]"
