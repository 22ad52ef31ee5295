"""What history keeps of a dispatch (contract §5, I2 `record`): the status from the answer, and an answer
over 256 KiB shortened with notes (text cut, images dropped) carrying `truncated: {bytes}`, its full size."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from core.calls.outcome import Outcome, of_success
from core.records.history import MAX_STORED_BYTES, record_for

pytestmark = pytest.mark.unit


def size_of(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def function_answer(output: Any, success: bool | None = True) -> dict[str, Any]:
    return {
        "output": {"type": "function_call_output", "call_id": "c1", "output": output},
        "success": success,
        "outcome": of_success(success).value,
    }


def mcp_answer(content: list[dict[str, Any]], **result: Any) -> dict[str, Any]:
    ok = {"content": content, "isError": False, **result}
    return {
        "output": {"type": "mcp_tool_call_output", "call_id": "m1", "result": {"Ok": ok}},
        "success": True,
        "outcome": "done",
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(size: int) -> dict[str, Any]:
    return {
        "type": "image",
        "data": base64.b64encode(b"\x89PNG" * (size // 4)).decode(),
        "mimeType": "image/png",
    }


# --- status -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("outcome", list(Outcome))
def test_the_status_is_the_outcome_the_answer_carries(outcome: Outcome) -> None:
    answer = function_answer("the same answer shape for every outcome") | {"outcome": outcome.value}
    assert record_for(answer) == {"status": outcome.value, "answer": answer}


def test_a_relayed_answer_that_fits_is_not_carried_twice_and_one_shortened_is() -> None:
    small = function_answer("Plan updated")
    assert record_for(small, relayed=True) == {"status": "done"}
    large = function_answer("x" * (MAX_STORED_BYTES + 1))
    record = record_for(large, relayed=True)
    assert record["truncated"] == {"bytes": size_of(large)}
    assert size_of(record["answer"]) <= MAX_STORED_BYTES


# --- shortening ---------------------------------------------------------------------------------------------


def test_an_answer_of_exactly_the_limit_is_kept_whole() -> None:
    answer = function_answer("")
    answer["output"]["output"] = "x" * (MAX_STORED_BYTES - size_of(answer))
    assert size_of(answer) == MAX_STORED_BYTES
    assert record_for(answer) == {"status": "done", "answer": answer}


def test_a_long_text_output_is_cut_with_a_note_saying_how_much_and_keeps_its_envelope() -> None:
    body = "".join(f"line {n}\n" for n in range(200_000))  # ~1.5 MB
    answer = function_answer(body)
    record = record_for(answer)
    stored = record["answer"]
    # The original size counts each string as its UTF-8 text: JSON's escapes (here one per "\n") aside.
    assert record["truncated"] == {"bytes": size_of(answer) - body.count("\n")}
    assert size_of(stored) <= MAX_STORED_BYTES
    assert (stored["success"], stored["output"]["call_id"], stored["output"]["type"]) == (
        True,
        "c1",
        "function_call_output",
    )
    kept, note = stored["output"]["output"].rsplit("\n[", 1)
    assert body.startswith(kept) and len(kept) > 200_000
    assert note == f"{len(body) - len(kept)} of {len(body)} characters cut from history]"
    assert answer["output"]["output"] is body  # the caller's answer is untouched


def test_images_are_dropped_with_a_note_and_the_text_beside_them_is_kept_whole() -> None:
    answer = mcp_answer([text("a chart of the sales"), image(400_000), text("and its caption")])
    record = record_for(answer)
    content = record["answer"]["output"]["result"]["Ok"]["content"]
    dropped = size_of(answer["output"]["result"]["Ok"]["content"][1])
    assert content == [
        text("a chart of the sales"),
        text(f"[image of {dropped} bytes dropped from history]"),
        text("and its caption"),
    ]
    assert record["truncated"] == {"bytes": size_of(answer)}
    assert record["status"] == "done"


def test_the_models_input_images_are_dropped_as_input_text_notes() -> None:
    url = "data:image/png;base64," + "A" * 300_000
    answer = function_answer(
        [{"type": "input_text", "text": "shot"}, {"type": "input_image", "image_url": url}]
    )
    items = record_for(answer)["answer"]["output"]["output"]
    assert items[0] == {"type": "input_text", "text": "shot"}
    assert items[1]["type"] == "input_text"
    assert items[1]["text"].startswith("[input_image of ") and items[1]["text"].endswith(
        " dropped from history]"
    )


def test_nested_content_is_handled_blobs_dropped_and_every_long_string_cut_fairly() -> None:
    answer = mcp_answer(
        [
            {
                "type": "resource",
                "resource": {"uri": "file:///a.bin", "mimeType": "x/y", "blob": "B" * 200_000},
            },
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "T" * 400_000}},
        ],
        structuredContent={"rows": [{"id": 1, "body": "S" * 400_000}, {"id": 2, "body": "short"}]},
    )
    record = record_for(answer)
    ok = record["answer"]["output"]["result"]["Ok"]
    assert size_of(record["answer"]) <= MAX_STORED_BYTES
    assert ok["content"][0]["resource"] == {
        "uri": "file:///a.bin",
        "mimeType": "x/y",
        "text": "[blob of 200000 bytes dropped from history]",
    }
    cut_text = ok["content"][1]["resource"]["text"]
    cut_body = ok["structuredContent"]["rows"][0]["body"]
    assert cut_text.startswith("T" * 100_000) and cut_text.endswith(" of 400000 characters cut from history]")
    assert cut_body.startswith("S" * 100_000) and cut_body.endswith(" of 400000 characters cut from history]")
    # Short strings and everything that is not text stay as they were.
    assert ok["structuredContent"]["rows"][1] == {"id": 2, "body": "short"}
    assert ok["content"][1]["resource"]["uri"] == "file:///a.txt"


def test_the_size_counts_utf8_bytes() -> None:
    body = "é" * 140_000  # 140 000 characters, 280 000 bytes
    record = record_for(function_answer(body))
    assert record["truncated"] == {"bytes": size_of(function_answer(body))}
    assert size_of(record["answer"]) <= MAX_STORED_BYTES


def test_an_answer_made_of_structure_keeps_its_start_and_says_how_many_items_were_cut() -> None:
    answer = mcp_answer([text("numbers")], structuredContent={"values": list(range(120_000))})
    record = record_for(answer)
    stored = record["answer"]
    assert size_of(stored) <= MAX_STORED_BYTES
    assert record["truncated"] == {"bytes": size_of(answer)}
    ok = stored["output"]["result"]["Ok"]
    assert ok["content"] == [text("numbers")]
    *values, note = ok["structuredContent"]["values"]
    assert values == list(range(len(values))) and len(values) > 20_000
    assert note == f"[{120_000 - len(values)} more items cut from history]"


def test_many_small_items_are_kept_from_the_start_with_a_note_for_the_rest() -> None:
    content = [text(f"row {n} " + "x" * 1000) for n in range(20_000)]
    answer = mcp_answer(content, meta={"page": 1})
    record = record_for(answer)
    stored = record["answer"]
    assert size_of(stored) <= MAX_STORED_BYTES
    *kept, note = stored["output"]["result"]["Ok"]["content"]
    assert kept[:-1] == content[: len(kept) - 1]  # whole items, in order; the last kept one may be cut
    assert note == f"[{20_000 - len(kept)} more items cut from history]"
    assert stored["output"]["call_id"] == "m1" and stored["success"] is True


@pytest.mark.parametrize(
    "structured",
    [
        {"k" * (MAX_STORED_BYTES + 1): 1},  # all in one key
        {"values": [10**4000] * 70},  # in few big numbers
        {"values": [-1.7976931348623157e308] * 12_000},  # in floats
    ],
    ids=["key", "ints", "floats"],
)
def test_an_answer_over_the_limit_in_keys_or_numbers_is_shortened(structured: dict[str, Any]) -> None:
    # Small answers are passed by a bound, never encoded: the bound counts what is not text too.
    answer = mcp_answer([text("x")], structuredContent=structured)
    record = record_for(answer, relayed=True)
    assert record["truncated"]["bytes"] > MAX_STORED_BYTES
    assert size_of(record["answer"]) <= MAX_STORED_BYTES


def test_a_60_mb_answer_is_shortened_to_the_limit() -> None:
    # Linear cost: figures come from `python3 build.py bench`, never from a test; this checks the result.
    body = "0123456789abcdef" * (60 * 1024 * 1024 // 16)
    answer = mcp_answer([text(body), image(1_000_000)])
    record = record_for(answer)
    assert record["truncated"] == {"bytes": size_of(answer)}
    assert record["truncated"]["bytes"] > 60 * 1024 * 1024
    stored = record["answer"]
    assert size_of(stored) <= MAX_STORED_BYTES
    content = stored["output"]["result"]["Ok"]["content"]
    assert content[0]["text"].startswith(body[:200_000])
    assert content[0]["text"].endswith(f" of {len(body)} characters cut from history]")
    assert content[1]["text"].startswith("[image of ")
