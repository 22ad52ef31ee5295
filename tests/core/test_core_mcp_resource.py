"""MCP resource tools (spec 001, notes b4): arguments, payload JSON, aggregation, events, errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from core_fakes import SOON, FakeHost, FakeServer, connect, dispatch, function_call

from core.calls.capabilities import ServerStatus
from core.calls.errors import RespondToModel
from core.calls.payload import CustomPayload, FunctionPayload, ToolCall
from core.host_link.servers import TIMEOUT_MARGIN_MS, ServerBoard
from core.runtime.facade import Service
from core.tools.handlers.mcp_resource import McpResourceHandler

pytestmark = pytest.mark.unit


def resource(uri: str, name: str) -> dict[str, Any]:
    return {"uri": uri, "name": name}


def host() -> FakeHost:
    return FakeHost(
        {
            "figma": FakeServer(
                resource_pages=[[resource("memo://123", "memo")]],
                template_pages=[[{"uriTemplate": "memo://{id}", "name": "memo"}]],
                contents={"memo://123": [{"uri": "memo://123", "mimeType": "text/plain", "text": "hello"}]},
            ),
            "beta": FakeServer(resource_pages=[[resource("memo://b-1", "b-1")]]),
            "alpha": FakeServer(
                resource_pages=[[resource("memo://a-1", "a-1")], [resource("memo://a-2", "a-2")]],
                template_pages=[[{"uriTemplate": "file://{path}", "name": "file"}]],
            ),
        }
    )


async def resource_service(fake: FakeHost | None = None) -> tuple[Service, FakeHost, list[dict[str, Any]]]:
    fake = fake or host()
    events: list[dict[str, Any]] = []
    svc = Service(emit=events.append, host=fake)
    await connect(svc, fake)
    return svc, fake, events


async def call(svc: Service, name: str, arguments: str) -> tuple[Any, Any]:
    answer = await svc.handle(dispatch(function_call(name, arguments, "r1")))
    assert answer["output"]["type"] == "function_call_output"
    assert answer["output"]["call_id"] == "r1"
    return answer["output"]["output"], answer["success"]


def ended_with(events: list[dict[str, Any]]) -> Any:
    assert [event["type"] for event in events] == ["McpToolCallBegin", "McpToolCallEnd"]
    assert isinstance(events[1]["duration_ms"], int)
    return events[1]["result"]


# --- Input/Output examples -------------------------------------------------------------------------------


async def test_list_resources_for_a_specific_server() -> None:
    svc, fake, events = await resource_service()
    output, success = await call(svc, "list_mcp_resources", '{"server":"figma","cursor":null}')
    assert output == '{"server":"figma","resources":[{"server":"figma","uri":"memo://123","name":"memo"}]}'
    assert success is True
    assert fake.requests[-1].params == {"server": "figma"}
    assert events[0] == {
        "type": "McpToolCallBegin",
        "call_id": "r1",
        "invocation": {
            "server": "figma",
            "tool": "list_mcp_resources",
            "arguments": {"server": "figma", "cursor": None},
        },
    }
    assert ended_with(events) == {"Ok": {"content": [{"type": "text", "text": output}], "isError": False}}


async def test_list_resources_for_a_server_copies_the_next_cursor_and_passes_a_cursor_on() -> None:
    svc, fake, _ = await resource_service()
    first, _ = await call(svc, "list_mcp_resources", '{"server":"alpha"}')
    assert json.loads(first) == {
        "server": "alpha",
        "resources": [{"server": "alpha", "uri": "memo://a-1", "name": "a-1"}],
        "nextCursor": "1",
    }
    second, _ = await call(svc, "list_mcp_resources", '{"server":"alpha","cursor":"1"}')
    assert fake.requests[-1].params == {"server": "alpha", "cursor": "1"}
    assert json.loads(second) == {
        "server": "alpha",
        "resources": [{"server": "alpha", "uri": "memo://a-2", "name": "a-2"}],
    }


async def test_a_listings_answer_says_where_the_next_page_starts_as_a_field_for_the_pager() -> None:
    svc, _, _ = await resource_service()
    first = await svc.handle(dispatch(function_call("list_mcp_resources", '{"server":"alpha"}', "r1")))
    assert first["pages"] == {"next": "1"} and first["success"] is True
    last = await svc.handle(
        dispatch(function_call("list_mcp_resources", '{"server":"alpha","cursor":"1"}', "r2"))
    )
    assert last["pages"] == {"next": None}


async def test_a_resource_read_and_other_tools_are_not_paged() -> None:
    svc, _, _ = await resource_service()
    read = await svc.handle(
        dispatch(function_call("read_mcp_resource", '{"server":"figma","uri":"memo://123"}', "r1"))
    )
    assert read["success"] is True and "pages" not in read
    plan = await svc.handle(dispatch(function_call("update_plan", '{"plan":[]}', "p1")))
    assert "pages" not in plan


async def test_the_cursor_field_stays_off_the_models_wire() -> None:
    svc, _, _ = await resource_service()
    first = await svc.handle(dispatch(function_call("list_mcp_resources", '{"server":"alpha"}', "r1")))
    assert set(first["output"]) == {"type", "call_id", "output"}


@pytest.mark.parametrize("arguments", ["{}", "", "  \n\t"])
async def test_list_resources_of_all_servers_is_merged_and_sorted_by_server_name(arguments: str) -> None:
    svc, fake, events = await resource_service()
    output, success = await call(svc, "list_mcp_resources", arguments)
    assert json.loads(output) == {
        "resources": [
            {"server": "alpha", "uri": "memo://a-1", "name": "a-1"},
            {"server": "alpha", "uri": "memo://a-2", "name": "a-2"},
            {"server": "beta", "uri": "memo://b-1", "name": "b-1"},
            {"server": "figma", "uri": "memo://123", "name": "memo"},
        ]
    }
    assert success is True
    assert fake.requests[-1].params == {}
    assert events[0]["invocation"]["server"] == "codex"


async def test_all_servers_listing_is_sorted_even_when_the_host_answers_unsorted() -> None:
    class UnsortedHost:
        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            return {
                "resources": [
                    {"server": "b", "uri": "1"},
                    {"server": "a", "uri": "2"},
                    {"server": "b", "uri": "3"},
                ]
            }

    handler = McpResourceHandler(UnsortedHost(), lambda event: None, ServerBoard())
    output = await handler.handle(ToolCall("list_mcp_resources", "r1", FunctionPayload("")))
    assert [entry["uri"] for entry in json.loads(output.content)["resources"]] == ["2", "1", "3"]


async def test_list_resources_with_a_cursor_but_no_server_is_refused_after_the_begin_event() -> None:
    svc, fake, events = await resource_service()
    assert await call(svc, "list_mcp_resources", '{"cursor":"abc"}') == (
        "cursor can only be used when a server is specified",
        False,
    )
    assert fake.requests == []  # a built-in: not even the MCP tool table is fetched
    assert ended_with(events) == {"Err": "cursor can only be used when a server is specified"}


async def test_read_resource_success() -> None:
    svc, fake, events = await resource_service()
    output, success = await call(svc, "read_mcp_resource", '{"server":"figma","uri":"memo://123"}')
    assert output == (
        '{"server":"figma","uri":"memo://123",'
        '"contents":[{"uri":"memo://123","mimeType":"text/plain","text":"hello"}]}'
    )
    assert success is True
    assert fake.requests[-1].params == {"server": "figma", "uri": "memo://123"}
    assert events[0]["invocation"] == {
        "server": "figma",
        "tool": "read_mcp_resource",
        "arguments": {"server": "figma", "uri": "memo://123"},
    }
    assert ended_with(events)["Ok"]["content"][0]["text"] == output


async def test_read_resource_missing_server_is_refused_without_events() -> None:
    svc, _, events = await resource_service()
    assert await call(svc, "read_mcp_resource", '{"uri":"memo://123"}') == ("server must be provided", False)
    assert events == []


async def test_mcp_backend_error_is_answered_and_the_end_event_carries_it() -> None:
    svc, _, events = await resource_service()
    assert await call(svc, "read_mcp_resource", '{"server":"figma","uri":"memo://999"}') == (
        "resources/read failed: resource not found: memo://999",
        False,
    )
    assert ended_with(events) == {"Err": "resources/read failed: resource not found: memo://999"}


# --- Edge cases and argument handling -----------------------------------------------------------------


async def test_read_resource_missing_uri_is_refused() -> None:
    svc, _, _ = await resource_service()
    assert await call(svc, "read_mcp_resource", '{"server":"figma"}') == ("uri must be provided", False)


async def test_read_resource_with_blank_fields_is_refused_as_missing() -> None:
    svc, _, _ = await resource_service()
    assert await call(svc, "read_mcp_resource", '{"server":"  ","uri":"memo://123"}') == (
        "server must be provided",
        False,
    )


async def test_read_resource_with_empty_arguments_expects_a_value() -> None:
    svc, _, events = await resource_service()
    assert await call(svc, "read_mcp_resource", " ") == (
        "failed to parse function arguments: expected value",
        False,
    )
    assert events == []


async def test_server_uri_and_cursor_are_trimmed() -> None:
    svc, fake, _ = await resource_service()
    await call(svc, "read_mcp_resource", '{"server":" figma ","uri":" memo://123\\n"}')
    assert fake.requests[-1].params == {"server": "figma", "uri": "memo://123"}
    await call(svc, "list_mcp_resources", '{"server":" alpha ","cursor":" 1 "}')
    assert fake.requests[-1].params == {"server": "alpha", "cursor": "1"}


async def test_a_blank_cursor_without_a_server_counts_as_no_cursor() -> None:
    svc, _, _ = await resource_service()
    output, success = await call(svc, "list_mcp_resources", '{"server":"","cursor":"  "}')
    assert success is True
    assert "server" not in json.loads(output)


async def test_arguments_that_are_not_json_are_refused_without_events() -> None:
    svc, _, events = await resource_service()
    assert await call(svc, "list_mcp_resources", "{server:1}") == (
        "failed to parse function arguments: key must be a string at line 1 column 2",
        False,
    )
    assert events == []


async def test_arguments_of_the_wrong_type_are_refused_naming_the_field() -> None:
    svc, _, _ = await resource_service()
    assert await call(svc, "list_mcp_resources", '{"server":5}') == (
        "failed to parse function arguments: server: Input should be a valid string",
        False,
    )


async def test_unknown_argument_fields_are_ignored() -> None:
    svc, _, _ = await resource_service()
    _, success = await call(svc, "list_mcp_resources", '{"server":"figma","limit":3}')
    assert success is True


async def test_listing_an_unknown_server_reports_the_hosts_error() -> None:
    svc, _, _ = await resource_service()
    assert await call(svc, "list_mcp_resources", '{"server":"nope"}') == (
        "resources/list failed: unknown server 'nope'",
        False,
    )


async def test_a_server_that_could_not_be_listed_is_named_under_failed_servers() -> None:
    fake = host()
    fake.servers["beta"].failing = True
    fake.servers["beta"].reason = "timed out after 60 s"
    svc, _, _ = await resource_service(fake)
    output, success = await call(svc, "list_mcp_resources", "")
    payload = json.loads(output)
    assert [entry["server"] for entry in payload["resources"]] == ["alpha", "alpha", "figma"]
    assert payload["failedServers"] == [{"server": "beta", "message": "timed out after 60 s"}]
    assert success is True
    templates, _ = await call(svc, "list_mcp_resource_templates", "")
    assert json.loads(templates)["failedServers"] == [{"server": "beta", "message": "timed out after 60 s"}]


async def test_each_resource_request_waits_as_long_as_its_servers_own_tool_timeout() -> None:
    fake = host()
    fake.servers["figma"].tool_timeout_sec = 2
    fake.servers["alpha"].tool_timeout_sec = 300
    svc, _, _ = await resource_service(fake)
    await call(svc, "read_mcp_resource", '{"server":"figma","uri":"memo://123"}')
    await call(svc, "list_mcp_resources", '{"server":"beta"}')
    await call(svc, "list_mcp_resources", "")
    limits = [(request.method, request.params.get("server"), request.timeout_ms) for request in fake.requests]
    assert limits == [
        ("resources/read", "figma", 2_000 + TIMEOUT_MARGIN_MS),
        ("resources/list", "beta", 60_000 + TIMEOUT_MARGIN_MS),  # no toolTimeoutSec: codex's 60 s
        # Every server: the slowest one's timeout; the host waits at most 1 s for servers still starting.
        ("resources/list", None, 300_000 + 1_000 + TIMEOUT_MARGIN_MS),
    ]


async def test_list_resource_templates_for_one_server_and_for_all_servers() -> None:
    svc, _, events = await resource_service()
    one, _ = await call(svc, "list_mcp_resource_templates", '{"server":"figma"}')
    assert (
        one
        == '{"server":"figma","resourceTemplates":[{"server":"figma","uriTemplate":"memo://{id}","name":"memo"}]}'
    )
    every, _ = await call(svc, "list_mcp_resource_templates", "{}")
    assert json.loads(every) == {
        "resourceTemplates": [
            {"server": "alpha", "uriTemplate": "file://{path}", "name": "file"},
            {"server": "figma", "uriTemplate": "memo://{id}", "name": "memo"},
        ]
    }
    assert events[0]["invocation"]["tool"] == "list_mcp_resource_templates"


async def test_list_resource_templates_with_a_cursor_but_no_server_is_refused() -> None:
    svc, _, _ = await resource_service()
    assert await call(svc, "list_mcp_resource_templates", '{"cursor":"abc"}') == (
        "cursor can only be used when a server is specified",
        False,
    )


async def test_an_invalid_host_answer_is_reported_naming_the_field() -> None:
    class BadHost:
        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            return {"server": "s", "resources": "none"}

    handler = McpResourceHandler(BadHost(), lambda event: None, ServerBoard())
    with pytest.raises(RespondToModel) as raised:
        await handler.handle(ToolCall("list_mcp_resources", "r1", FunctionPayload('{"server":"s"}')))
    assert (
        raised.value.message
        == "resources/list failed: invalid answer from the host: resources: Input should be a valid list"
    )


async def test_a_resource_request_the_host_never_answers_times_out() -> None:
    class SilentHost:
        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            await asyncio.Event().wait()

    servers = ServerBoard(margin_ms=5)
    servers.update([ServerStatus(name="s", transport="stdio", status="ready", toolTimeoutSec=0.005)])
    handler = McpResourceHandler(SilentHost(), lambda event: None, servers)
    with pytest.raises(RespondToModel, match=r"^resources/read failed: timed out after 10 ms$"):
        await handler.handle(ToolCall("read_mcp_resource", "r1", FunctionPayload('{"server":"s","uri":"u"}')))


async def test_the_handler_refuses_other_tool_names_and_payloads() -> None:
    handler = McpResourceHandler(host(), lambda event: None, ServerBoard())
    with pytest.raises(RespondToModel, match=r"^unsupported MCP resource tool: read_everything$"):
        await handler.handle(ToolCall("read_everything", "r1", FunctionPayload("")))
    with pytest.raises(RespondToModel, match=r"^mcp_resource handler received unsupported payload$"):
        await handler.handle(ToolCall("list_mcp_resources", "r1", CustomPayload("")))


async def test_resource_tools_are_offered_as_parallel_built_ins_when_mcp_is_usable() -> None:
    svc, _, _ = await resource_service()
    offered = {tool["name"]: tool for tool in (await svc.handle({"type": "tools"}))["tools"]}
    for name in ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"):
        assert (offered[name]["source"], offered[name]["supportsParallel"]) == ("builtin", True)
    assert offered["read_mcp_resource"]["parameters"]["required"] == ["server", "uri"]
    assert offered["list_mcp_resources"]["parameters"] == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "server": {
                "type": "string",
                "description": (
                    "Optional MCP server name. When omitted, lists resources from every configured server."
                ),
            },
            "cursor": {
                "type": "string",
                "description": (
                    "Opaque cursor returned by a previous list_mcp_resources call for the same server."
                ),
            },
        },
    }


async def test_cancelling_a_resource_call_ends_its_events_and_propagates() -> None:
    class HeldHost:
        def __init__(self) -> None:
            self.asked = asyncio.Event()

        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            self.asked.set()
            await asyncio.Event().wait()

    held = HeldHost()
    events: list[dict[str, Any]] = []
    handler = McpResourceHandler(held, events.append, ServerBoard())
    running = asyncio.create_task(
        handler.handle(ToolCall("read_mcp_resource", "r1", FunctionPayload('{"server":"s","uri":"u"}')))
    )
    await asyncio.wait_for(held.asked.wait(), SOON)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert ended_with(events) == {"Err": "tool call cancelled"}
