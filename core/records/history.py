"""What history keeps of one dispatch (contract §5 history entry): its status, a bounded copy of the answer.

The service worker stores `record_for(answer)` as it is; the status is the answer's own `outcome`
(`core.calls.outcome`, decided when the call ended) and Python decides the shortening here.
Cost is linear in the answer's items, not its bytes: long strings are measured without being encoded
(`str.isascii` is O(1) in CPython), and only the shortened copy is ever encoded as JSON. Most answers are
small: one walk bounds their size and they are kept without measuring further.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from core.calls.outcome import Outcome

# A stored answer over this size (compact JSON, UTF-8) is shortened.
MAX_STORED_BYTES = 256 * 1024
# Room left under the bound for the notes and for what JSON escaping adds to the cut text.
_NOTES_ROOM = 8 * 1024
# Passes of "cut the long strings harder" before the start of the answer is kept instead.
_MAX_PASSES = 4
# What one note takes, as `_head` reckons room for it.
_NOTE_BYTES = 64
# Answers with more items than this are measured by encoding them (C speed, linear in bytes) rather than
# by walking them (Python speed, linear in items), and only their start is kept.
_WALK_LIMIT = 50_000

type Json = Any
# Each string's UTF-8 size by `id`. Every string recorded stays alive in the answer while its record is
# made, so no id is reused meanwhile.
type Sizes = dict[int, int]

# Content items that carry binary data: MCP `image`/`audio` (`data`), the model's `input_image` (`image_url`).
_BINARY_ITEMS = {"image": "text", "audio": "text", "input_image": "input_text"}


def record_for(answer: dict[str, Any], *, relayed: bool = False) -> dict[str, Any]:
    """`{status, answer?, truncated?: {bytes}}`: `status` the answer's outcome; `answer` as it is when it
    fits, shortened otherwise. `relayed`: the worker holds the answer already (it relays it to the caller),
    so a record of one that fits leaves it out rather than carry a second copy.

    `truncated.bytes` is the answer's compact JSON size; in an answer of few items each string counts as
    its UTF-8 text (JSON's escapes aside, which would need every byte read)."""
    record: dict[str, Any] = {"status": Outcome(answer["outcome"]).value}
    if _surely_fits(answer):
        if not relayed:
            record["answer"] = answer
        return record
    sizes: Sizes = {}
    strings = _strings_of_few_items(answer)
    if strings is None:
        # Many items: mostly structure, measured by encoding it.
        size, structure_bytes = _json_size(answer), MAX_STORED_BYTES
    else:
        text_bytes, structure_bytes = _measure(answer, strings, sizes)
        size = text_bytes + structure_bytes
    if size <= MAX_STORED_BYTES:
        if not relayed:
            record["answer"] = answer
        return record
    if structure_bytes + _NOTES_ROOM < MAX_STORED_BYTES:
        record["answer"] = _cut_long_strings(answer, MAX_STORED_BYTES, sizes)
    else:
        # Mostly structure (an array of numbers, many small items): only its start can be kept.
        record["answer"] = _keep_start(answer, MAX_STORED_BYTES, sizes)
    record["truncated"] = {"bytes": size}
    return record


def _surely_fits(value: Json) -> bool:
    """Whether `value`'s compact JSON surely fits, by a bound counted in one walk without encoding it: a
    character takes at most 6 bytes (`\u001f`), an int a digit per 3 bits. The walk below never counts
    more than the encoded size (escapes only add), so whatever this passes it passes too; the rest, and any
    value JSON cannot hold, goes the long way."""
    bound, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            bound += 6 * len(item) + 2
        elif isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    return False
                bound += 6 * len(key) + 4  # quotes, colon, comma
            bound += 2
            stack.extend(item.values())
        elif isinstance(item, list):
            bound += 2 + len(item)
            stack.extend(item)
        elif item is None or isinstance(item, bool):
            bound += 5
        elif isinstance(item, int):
            bound += item.bit_length() // 3 + 2
        elif isinstance(item, float):
            bound += 24  # the longest repr: -1.7976931348623157e+308
        else:
            return False
        if bound > MAX_STORED_BYTES:
            return False
    return True


def _measure(value: Json, strings: list[str], sizes: Sizes) -> tuple[int, int]:
    """(bytes of text in its `strings`, bytes of everything else) of `value`'s compact JSON."""
    text_bytes = 0
    for text in strings:
        size = sizes.get(id(text))
        if size is None:
            size = sizes[id(text)] = _text_size(text)
        text_bytes += size
    return text_bytes, _json_size(_cut_strings(value, 0, sizes, with_note=False))


def _cut_long_strings(value: Json, limit: int, sizes: Sizes) -> Json:
    """Binary content dropped and the long strings cut to one shared length, each with a note."""
    kept = _drop_binary(value, sizes)
    _, structure_bytes = _measure(kept, _strings_in(kept), sizes)  # notes are new strings
    budget = limit - _NOTES_ROOM - structure_bytes
    for _ in range(_MAX_PASSES):
        candidate = _cut_strings(
            kept, _cap_for([sizes[id(text)] for text in _strings_in(kept)], budget), sizes
        )
        size = _json_size(candidate)
        if size <= limit:
            return candidate
        # JSON's escapes took more room than the text sizes said: cut harder.
        budget -= size - limit + _NOTES_ROOM
        if budget <= 0:
            break
    return _keep_start(kept, limit, sizes)


def _keep_start(value: Json, limit: int, sizes: Sizes) -> Json:
    """The start of `value` in document order; each pass costs what it keeps and takes at least
    `_NOTES_ROOM` less room than the one before."""
    room = limit - _NOTES_ROOM
    while room > 0:
        candidate, _ = _head(value, room, sizes)
        size = _json_size(candidate)
        if size <= limit:
            return candidate
        room -= size - limit + _NOTES_ROOM
    return "[the answer was too large to keep in history]"


def _json_size(value: Json) -> int:
    return _text_size(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _size_of(text: str, sizes: Sizes) -> int:
    size = sizes.get(id(text))
    return _text_size(text) if size is None else size


def _nodes(value: Json) -> Iterator[Json]:
    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _strings_in(value: Json) -> list[str]:
    """Every string value in `value` (keys aside), once per place it appears."""
    return [item for item in _nodes(value) if isinstance(item, str)]


def _strings_of_few_items(value: Json) -> list[str] | None:
    """`_strings_in(value)`, or None when `value` has more than `_WALK_LIMIT` items."""
    found: list[str] = []
    for count, item in enumerate(_nodes(value)):
        if count > _WALK_LIMIT:
            return None
        if isinstance(item, str):
            found.append(item)
    return found


def _without_binary(item: dict[str, Any], sizes: Sizes) -> dict[str, Any]:
    """One content item with its binary data replaced by a note (the item itself when it has none)."""
    kind = item.get("type")
    if isinstance(kind, str) and kind in _BINARY_ITEMS:
        size = sum(_measure(item, _strings_in(item), sizes))
        return {"type": _BINARY_ITEMS[kind], "text": f"[{kind} of {size} bytes dropped from history]"}
    blob = item.get("blob")
    if isinstance(blob, str):
        # An embedded resource's binary contents (MCP `BlobResourceContents`).
        rest = {key: value for key, value in item.items() if key != "blob"}
        return rest | {"text": f"[blob of {len(blob)} bytes dropped from history]"}
    return item


def _drop_binary(value: Json, sizes: Sizes) -> Json:
    if isinstance(value, dict):
        item = _without_binary(value, sizes)
        return {key: _drop_binary(field, sizes) for key, field in item.items()}
    if isinstance(value, list):
        return [_drop_binary(item, sizes) for item in value]
    return value


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


def _cut_strings(value: Json, cap: int, sizes: Sizes, *, with_note: bool = True) -> Json:
    """Every string of `value` over `cap` bytes cut (with a note) or, without notes, emptied."""
    if isinstance(value, str):
        size = _size_of(value, sizes)
        if size <= cap:
            return value
        if not with_note:
            return ""
        # Keep the share of characters that matches the share of bytes (multi-byte characters).
        return _cut_text(value, len(value) * cap // size)
    if isinstance(value, dict):
        return {key: _cut_strings(item, cap, sizes, with_note=with_note) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_strings(item, cap, sizes, with_note=with_note) for item in value]
    return value


def _head(value: Json, room: int, sizes: Sizes) -> tuple[Json, int]:
    """The start of `value`, in document order, in about `room` bytes, and the bytes it takes: binary data
    dropped, and the items or fields that do not fit replaced by one note saying how many were cut.
    Visits only what it keeps."""
    if isinstance(value, str):
        size = _size_of(value, sizes)
        if size + 2 <= room:
            return value, size + 2
        keep = max(0, room - 2 - _NOTE_BYTES)
        return _cut_text(value, len(value) * keep // max(size, 1)), room
    if isinstance(value, list):
        items: list[Json] = []
        used = 2
        for index, item in enumerate(value):
            if used + _NOTE_BYTES >= room:
                items.append(f"[{len(value) - index} more items cut from history]")
                return items, used + _NOTE_BYTES
            kept, size = _head(item, room - used - _NOTE_BYTES, sizes)
            items.append(kept)
            used += size + 1
        return items, used
    if isinstance(value, dict):
        fields: dict[str, Json] = {}
        used = 2
        entries = _without_binary(value, sizes).items()
        for index, (key, item) in enumerate(entries):
            cost = len(key) + 4
            if used + cost + _NOTE_BYTES >= room:
                fields["cutFromHistory"] = f"[{len(entries) - index} more fields cut from history]"
                return fields, used + _NOTE_BYTES
            kept, size = _head(item, room - used - cost - _NOTE_BYTES, sizes)
            fields[key] = kept
            used += size + cost
        return fields, used
    return value, len(json.dumps(value))


def _cut_text(text: str, keep: int) -> str:
    return f"{text[:keep]}\n[{len(text) - keep} of {len(text)} characters cut from history]"
