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
    # Each string is encoded once to learn its size; the answer itself is never encoded as a whole here.
    sizes: dict[int, int] = {}
    size = _string_sizes(answer, sizes) + _structure_size(answer, sizes)
    if size <= MAX_STORED_BYTES:
        record["answer"] = answer
        return record
    record["answer"] = _shorten(answer, MAX_STORED_BYTES, sizes)
    record["truncated"] = {"bytes": size}
    return record


def _shorten(value: Json, limit: int, sizes: dict[int, int]) -> Json:
    """A copy of `value` whose compact JSON fits in `limit` bytes: binary content dropped and long strings
    cut, each with a note; every pass is linear in the size of `value`."""
    kept = _drop_binary(value)
    _string_sizes(kept, sizes)  # only the notes are new
    budget = limit - _NOTES_ROOM - _structure_size(kept, sizes)
    for _ in range(_MAX_PASSES):
        if budget <= 0:
            break
        candidate = _cut_strings(kept, _cap_for(_sizes_in(kept, sizes), budget), sizes)
        size = _json_size(candidate)
        if size <= limit:
            return candidate
        budget -= size - limit + _NOTES_ROOM
    # Mostly structure (a huge array of numbers, say): keep the start of its JSON text.
    text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
    return _cut_text(text, _prefix_within(text, limit - _NOTES_ROOM))


def _json_size(value: Json) -> int:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _utf8_size(text)


def _utf8_size(text: str) -> int:
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


def _string_sizes(value: Json, into: dict[int, int]) -> int:
    """Records the stored size of every string value by `id` (escapes included, quotes excluded) and
    returns their sum over every place they appear."""
    if isinstance(value, str):
        size = into.get(id(value))
        if size is None:
            size = into[id(value)] = _encoded_size(value)
        return size
    if isinstance(value, dict):
        return sum(_string_sizes(item, into) for item in value.values())
    if isinstance(value, list):
        return sum(_string_sizes(item, into) for item in value)
    return 0


def _sizes_in(value: Json, sizes: dict[int, int]) -> list[int]:
    """The size of each string in `value`, once per place it appears."""
    found: list[int] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(sizes[id(item)])
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _structure_size(value: Json, sizes: dict[int, int]) -> int:
    """The size of `value` with every string emptied: keys, numbers, brackets and two quotes per string."""
    return _json_size(_cut_strings(value, 0, sizes, with_note=False))


def _encoded_size(text: str) -> int:
    return _utf8_size(json.dumps(text, ensure_ascii=False)) - 2


def _cap_for(sizes: list[int], budget: int) -> int:
    """The largest `cap` with sum(min(size, cap)) <= budget: short strings stay whole and the long ones
    share what is left equally."""
    remaining = budget
    ordered = sorted(sizes)
    for index, size in enumerate(ordered):
        others = len(ordered) - index
        if size * others > remaining:
            return max(0, remaining // others)
        remaining -= size
    return ordered[-1] if ordered else 0


def _cut_strings(value: Json, cap: int, sizes: dict[int, int], *, with_note: bool = True) -> Json:
    """Every string of `value` over `cap` stored bytes cut (with a note) or, without notes, emptied."""
    if isinstance(value, str):
        size = sizes[id(value)]
        if size <= cap:
            return value
        if not with_note:
            return ""
        # Keep the share of characters that matches the share of bytes (escapes, multi-byte characters).
        return _cut_text(value, len(value) * cap // size)
    if isinstance(value, dict):
        return {key: _cut_strings(item, cap, sizes, with_note=with_note) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_strings(item, cap, sizes, with_note=with_note) for item in value]
    return value


def _prefix_within(text: str, limit: int) -> int:
    """How many leading characters of `text` take at most `limit` stored bytes."""
    keep = min(len(text), limit)
    while keep > 0 and (size := _encoded_size(text[:keep])) > limit:
        keep = min(keep - 1, keep * limit // size)
    return keep


def _cut_text(text: str, keep: int) -> str:
    return f"{text[:keep]}\n[{len(text) - keep} of {len(text)} characters cut from history]"
