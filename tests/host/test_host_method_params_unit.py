"""Both ends read a host method's params with the same model (core/messages/host_methods.py): what the core
sends is what the host parses, a handler cannot read another method's params, and the core cannot send a
method with params that are not its model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.host_link.host_requests import ask_host
from core.messages.host_methods import (
    FILES_CHECK_UPLOAD,
    HOST_METHODS,
    SERVERS_RESTART,
    TOOLS_CALL,
    AnyServerParams,
    CallParams,
    EnableParams,
    HostParams,
    PromptParams,
    ReadParams,
    ServerParams,
    UploadParams,
)
from native_host.methods.params import parse_params
from native_host.process.jsonrpc import Request

pytestmark = pytest.mark.unit

# One params object of each method, with every field the core sends set.
SENT: dict[str, HostParams] = {
    "tools/list": AnyServerParams(server="notes"),
    "tools/call": CallParams(server="notes", tool="add", arguments={"text": "hi"}),
    "resources/list": AnyServerParams(server="notes", cursor="2"),
    "resources/templates/list": AnyServerParams(),
    "resources/read": ReadParams(server="notes", uri="notes://1"),
    "prompts/list": AnyServerParams(),
    "prompts/get": PromptParams(server="notes", name="greet", arguments={"name": "Ada"}),
    "servers/logs": ServerParams(server="notes"),
    "servers/setEnabled": EnableParams(server="notes", enabled=False),
    "servers/restart": ServerParams(server="notes"),
    "servers/signIn": ServerParams(server="notes"),
    "servers/signOut": ServerParams(server="notes"),
    "files/checkUpload": UploadParams(paths=["/a"], folders=["/"]),
}


@pytest.mark.parametrize("name", sorted(HOST_METHODS))
def test_what_the_core_sends_the_host_parses_into_the_same_model(name: str) -> None:
    sent = SENT[name]
    assert type(sent) is HOST_METHODS[name].params
    assert parse_params(type(sent), Request(1, name, sent.to_wire())) == sent


def test_the_wire_names_stay_those_of_docs_protocol() -> None:
    assert CallParams(server="s", tool="t", timeout_ms=5).to_wire() == {
        "server": "s",
        "tool": "t",
        "timeoutMs": 5,
    }
    assert AnyServerParams().to_wire() == {}  # every server's listing: no `server`


def test_a_handler_cannot_read_another_methods_params() -> None:
    with pytest.raises(LookupError):
        parse_params(ServerParams, Request(1, TOOLS_CALL.name, {"server": "s"}))


def test_bad_params_are_refused_naming_the_method_and_the_field() -> None:
    with pytest.raises(McpRequestError) as refused:
        parse_params(UploadParams, Request(1, FILES_CHECK_UPLOAD.name, {"paths": "/a", "folders": []}))
    assert refused.value.code == McpErrorCode.INVALID_PARAMS
    assert refused.value.message.startswith("invalid params for files/checkUpload: paths: ")


class Host:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        self.sent.append((method, params))
        return {}


def test_the_core_sends_a_method_only_with_its_model() -> None:
    host = Host()
    asyncio.run(ask_host(host, SERVERS_RESTART, ServerParams(server="notes"), limit_ms=1000))
    assert host.sent == [("servers/restart", {"server": "notes"})]
    with pytest.raises(TypeError):
        asyncio.run(
            ask_host(host, SERVERS_RESTART, EnableParams(server="notes", enabled=True), limit_ms=1000)
        )  # type: ignore[arg-type]
    assert len(host.sent) == 1
