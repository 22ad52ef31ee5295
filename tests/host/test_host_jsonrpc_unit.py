"""Pure logic of the host's JSON-RPC layer: message parsing and `$/chunk` splitting (no process needed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host.process.jsonrpc import (
    MAX_RESPONSE,
    ErrorCode,
    McpRequestError,
    Notification,
    Request,
    Response,
    dumps,
    parse_message,
    response_bodies,
    result_message,
)

pytestmark = pytest.mark.unit


def reassemble(bodies: list[bytes], request_id: object) -> object:
    if len(bodies) == 1:
        return json.loads(bodies[0])
    chunks = [json.loads(body) for body in bodies]
    assert all(c["method"] == "$/chunk" and c["params"]["id"] == request_id for c in chunks)
    assert [c["params"]["seq"] for c in chunks] == list(range(len(chunks)))
    assert [c["params"]["last"] for c in chunks] == [False] * (len(chunks) - 1) + [True]
    return json.loads("".join(c["params"]["data"] for c in chunks))


@settings(max_examples=300, deadline=None)
@given(
    payload=st.text(min_size=0, max_size=3000),
    limit=st.integers(min_value=300, max_value=900),
    request_id=st.one_of(st.integers(-(2**40), 2**40), st.text(max_size=20)),
)
def test_chunks_fit_the_limit_and_reassemble(payload: str, limit: int, request_id: int | str) -> None:
    message = result_message(request_id, {"content": [{"type": "text", "text": payload}]})
    bodies = response_bodies(request_id, dumps(message), limit=limit)
    assert all(len(body) <= limit for body in bodies)
    assert all(body.decode("utf-8") for body in bodies)  # every frame is valid UTF-8 on its own
    assert reassemble(bodies, request_id) == message


def test_a_large_escaped_response_is_chunked_under_one_mebibyte() -> None:
    text = ('"\\\n\x01é😀' * 300_000) + "end"
    message = result_message(7, {"text": text})
    body = dumps(message)
    bodies = response_bodies(7, body)
    assert len(bodies) > 1 and all(len(b) <= 1024 * 1024 for b in bodies)
    assert reassemble(bodies, 7) == message


def test_lone_surrogates_fall_back_to_escapes() -> None:
    body = dumps(result_message(1, {"text": "a\ud800b"}))
    assert json.loads(body)["result"]["text"] == "a\ud800b"


def test_nan_is_refused() -> None:
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})


def test_beyond_64_mib_is_result_too_large() -> None:
    with pytest.raises(McpRequestError) as caught:
        response_bodies(1, b"x" * (MAX_RESPONSE + 1))
    assert caught.value.code == ErrorCode.RESULT_TOO_LARGE


def test_parse_message_shapes() -> None:
    assert parse_message(b'{"jsonrpc":"2.0","id":1,"method":"ping"}') == Request(1, "ping", {})
    assert parse_message(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}') == Notification(
        "$/cancelRequest", {"id": 1}
    )
    # The browser answering the host's own requests (the agent gateway's).
    assert parse_message(b'{"jsonrpc":"2.0","id":"gw:1","result":{}}') == Response("gw:1", {}, None)
    assert parse_message(b'{"jsonrpc":"2.0","id":"gw:2","error":{"code":-1,"message":"no"}}') == Response(
        "gw:2", None, {"code": -1, "message": "no"}
    )
    assert parse_message(b'{"jsonrpc":"2.0","id":null,"result":{}}') is None  # nobody can be answered
    with pytest.raises(McpRequestError) as caught:
        parse_message(b'{"jsonrpc":"2.0","id":"x","method":"m","params":5}')
    assert (caught.value.code, caught.value.request_id) == (ErrorCode.INVALID_PARAMS, "x")
    with pytest.raises(McpRequestError) as caught:
        parse_message(b"[" * 100_000)
    assert caught.value.code == ErrorCode.PARSE_ERROR
    with pytest.raises(McpRequestError) as caught:
        parse_message(b'{"jsonrpc":"2.0","id":"' + b"x" * 300 + b'","method":"ping"}')
    assert caught.value.code == ErrorCode.INVALID_REQUEST and caught.value.request_id is None


def test_an_id_too_long_for_chunks_is_refused_not_looped() -> None:
    with pytest.raises(McpRequestError) as caught:
        response_bodies("x" * 200, b"y" * 5000, limit=300)
    assert caught.value.code == ErrorCode.RESULT_TOO_LARGE
