"""The router (spec 004 / codex `router.rs`): items to calls, calls to handlers, errors to outputs."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from core.calls.errors import Fatal, FunctionCallError, MissingLocalShellCallId, RespondToModel
from core.calls.items import parse_response_item
from core.calls.output import FunctionOutput, ToolOutput
from core.calls.payload import (
    CustomPayload,
    FunctionPayload,
    LocalShellPayload,
    McpPayload,
    PayloadKind,
    ShellToolCallParams,
    ToolCall,
)
from core.calls.spec import ToolSpec
from core.host_link.mcp_tools import McpTool
from core.host_link.servers import ServerBoard
from core.tools.guards import McpAccess
from core.tools.parallel import TurnGates
from core.tools.registry import RegisteredTool, ToolRegistry, ToolSource
from core.tools.router import build_tool_call, dispatch_tool_call, failure_response, handle_response_item

pytestmark = pytest.mark.unit


class StubHandler:
    """A handler answering with a fixed output or error, remembering the calls it got."""

    def __init__(
        self,
        accepts: Iterable[PayloadKind] = (PayloadKind.FUNCTION,),
        *,
        output: ToolOutput | None = None,
        error: FunctionCallError | None = None,
    ) -> None:
        self.accepts = frozenset(accepts)
        self.output = output or FunctionOutput("ok")
        self.error = error
        self.calls: list[ToolCall] = []

    async def handle(self, call: ToolCall) -> ToolOutput:
        self.calls.append(call)
        if self.error is not None:
            raise self.error
        return self.output


def spec(name: str) -> ToolSpec:
    return ToolSpec(name, f"{name} tool", {"type": "object", "properties": {}}, supports_parallel=False)


def registry(*tools: RegisteredTool, access: McpAccess = McpAccess.ENABLED) -> ToolRegistry:
    return ToolRegistry(tools, access=access, disabled=(), gates=TurnGates(), servers=ServerBoard())


MCP_TABLE = {"mcp__figma__list_files": McpTool("figma", "list_files", spec("mcp__figma__list_files"))}


def item(raw: dict[str, object]) -> ToolCall:
    return build_tool_call(parse_response_item(raw), MCP_TABLE)


# --- 1. building the call ---------------------------------------------------------------------------------


def test_a_function_call_whose_name_is_in_the_mcp_table_gets_an_mcp_payload() -> None:
    call = item(
        {
            "type": "function_call",
            "name": "mcp__figma__list_files",
            "arguments": '{"project":"123"}',
            "call_id": "c1",
        }
    )
    assert call == ToolCall(
        "mcp__figma__list_files", "c1", McpPayload("figma", "list_files", '{"project":"123"}')
    )


def test_a_name_shaped_like_an_mcp_name_but_not_in_the_table_is_a_plain_function_call() -> None:
    call = item(
        {"type": "function_call", "name": "mcp__figma__delete_all", "arguments": "{}", "call_id": "c1"}
    )
    assert call.payload == FunctionPayload("{}")


def test_mcp_recognition_uses_the_table_entry_not_the_name_text() -> None:
    table = {"mcp__a__b__c": McpTool("a__b", "c", spec("mcp__a__b__c"))}
    call = build_tool_call(
        parse_response_item(
            {"type": "function_call", "name": "mcp__a__b__c", "arguments": "", "call_id": "c"}
        ),
        table,
    )
    assert call.payload == McpPayload("a__b", "c", "")


def test_a_function_call_with_any_other_name_gets_a_function_payload() -> None:
    call = item({"type": "function_call", "name": "update_plan", "arguments": "{}", "call_id": "c2"})
    assert call == ToolCall("update_plan", "c2", FunctionPayload("{}"))


def test_a_custom_tool_call_gets_a_custom_payload_even_for_an_mcp_name() -> None:
    call = item(
        {"type": "custom_tool_call", "name": "mcp__figma__list_files", "input": "free text", "call_id": "c3"}
    )
    assert call == ToolCall("mcp__figma__list_files", "c3", CustomPayload("free text"))


def test_a_local_shell_call_becomes_local_shell_with_codex_defaults_for_the_missing_fields() -> None:
    call = item(
        {
            "type": "local_shell_call",
            "call_id": "c4",
            "action": {
                "type": "exec",
                "command": ["ls", "-l"],
                "working_directory": "/tmp",
                "timeout_ms": 500,
            },
        }
    )
    assert call == ToolCall(
        "local_shell",
        "c4",
        LocalShellPayload(ShellToolCallParams(command=("ls", "-l"), workdir="/tmp", timeout_ms=500)),
    )
    assert isinstance(call.payload, LocalShellPayload)
    params = call.payload.params
    assert (params.sandbox_permissions, params.prefix_rule, params.justification) == (None, None, None)


def test_a_local_shell_call_without_call_id_uses_its_id() -> None:
    call = item({"type": "local_shell_call", "id": "ls_1", "action": {"type": "exec", "command": ["pwd"]}})
    assert call.call_id == "ls_1"


def test_a_local_shell_call_without_call_id_or_id_is_an_error() -> None:
    with pytest.raises(MissingLocalShellCallId) as raised:
        item({"type": "local_shell_call", "action": {"type": "exec", "command": ["pwd"]}})
    assert str(raised.value) == "LocalShellCall without call_id or id"


async def test_the_missing_call_id_is_answered_with_an_empty_call_id_and_no_success_flag() -> None:
    answer = await handle_response_item(
        parse_response_item({"type": "local_shell_call", "action": {"type": "exec", "command": ["pwd"]}}),
        registry(),
    )
    assert answer.to_wire() == {
        "type": "function_call_output",
        "call_id": "",
        "output": "LocalShellCall without call_id or id",
    }
    assert answer.success is None


# --- 2./3. dispatching and errors ---------------------------------------------------------------------


async def test_dispatch_hands_the_call_to_the_registered_handler_and_wraps_its_output() -> None:
    handler = StubHandler(output=FunctionOutput("done"))
    call = ToolCall("tool", "c1", FunctionPayload('{"a":1}'))
    answer = await dispatch_tool_call(
        registry(RegisteredTool(spec("tool"), handler, ToolSource.BUILTIN)), call
    )
    assert handler.calls == [call]
    assert answer.to_wire() == {"type": "function_call_output", "call_id": "c1", "output": "done"}
    assert answer.success is True


async def test_a_fatal_error_propagates_and_aborts() -> None:
    handler = StubHandler(error=Fatal("tool produced no output"))
    with pytest.raises(Fatal) as raised:
        await dispatch_tool_call(
            registry(RegisteredTool(spec("tool"), handler, ToolSource.BUILTIN)),
            ToolCall("tool", "c1", FunctionPayload("{}")),
        )
    assert str(raised.value) == "Fatal error: tool produced no output"


async def test_any_other_error_becomes_a_failed_function_output() -> None:
    handler = StubHandler(error=RespondToModel("bad input"))
    answer = await dispatch_tool_call(
        registry(RegisteredTool(spec("tool"), handler, ToolSource.BUILTIN)),
        ToolCall("tool", "c1", FunctionPayload("{}")),
    )
    assert answer.to_wire() == {"type": "function_call_output", "call_id": "c1", "output": "bad input"}
    assert answer.success is False


async def test_an_error_for_a_custom_call_becomes_a_custom_tool_call_output() -> None:
    handler = StubHandler(accepts=(PayloadKind.CUSTOM,), error=RespondToModel("bad grammar"))
    answer = await dispatch_tool_call(
        registry(RegisteredTool(spec("free"), handler, ToolSource.BUILTIN)),
        ToolCall("free", "c1", CustomPayload("text")),
    )
    assert answer.to_wire() == {"type": "custom_tool_call_output", "call_id": "c1", "output": "bad grammar"}
    assert answer.success is False


async def test_a_successful_custom_call_answers_with_a_custom_tool_call_output() -> None:
    handler = StubHandler(accepts=(PayloadKind.CUSTOM,), output=FunctionOutput("patched"))
    answer = await dispatch_tool_call(
        registry(RegisteredTool(spec("free"), handler, ToolSource.BUILTIN)),
        ToolCall("free", "c1", CustomPayload("text")),
    )
    assert answer.to_wire() == {"type": "custom_tool_call_output", "call_id": "c1", "output": "patched"}
    assert answer.success is True


def test_failure_response_uses_the_errors_display_text() -> None:
    answer = failure_response("c9", False, MissingLocalShellCallId())
    assert answer.to_wire()["output"] == "LocalShellCall without call_id or id"


async def test_a_handler_given_a_payload_kind_it_does_not_accept_is_a_fatal_error() -> None:
    handler = StubHandler(accepts=(PayloadKind.MCP,))
    with pytest.raises(Fatal) as raised:
        await dispatch_tool_call(
            registry(RegisteredTool(spec("mcp__s__t"), handler, ToolSource.MCP)),
            ToolCall("mcp__s__t", "c1", FunctionPayload("{}")),
        )
    assert raised.value.message == "tool mcp__s__t invoked with incompatible payload"
    assert handler.calls == []


async def test_an_unknown_name_with_mcp_usable_is_an_unsupported_call() -> None:
    answer = await dispatch_tool_call(registry(), ToolCall("nope", "c1", FunctionPayload("{}")))
    assert answer.to_wire()["output"] == "unsupported call: nope"


async def test_an_unknown_custom_tool_with_mcp_usable_is_an_unsupported_custom_tool_call() -> None:
    answer = await dispatch_tool_call(registry(), ToolCall("nope", "c1", CustomPayload("x")))
    assert answer.to_wire() == {
        "type": "custom_tool_call_output",
        "call_id": "c1",
        "output": "unsupported custom tool call: nope",
    }


async def test_of_two_tools_registered_under_one_name_the_first_wins() -> None:
    first, second = StubHandler(output=FunctionOutput("first")), StubHandler(output=FunctionOutput("second"))
    answer = await dispatch_tool_call(
        registry(
            RegisteredTool(spec("t"), first, ToolSource.BUILTIN),
            RegisteredTool(spec("t"), second, ToolSource.BROWSER),
        ),
        ToolCall("t", "c1", FunctionPayload("{}")),
    )
    assert answer.to_wire()["output"] == "first"
    assert second.calls == []
