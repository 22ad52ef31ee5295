"""The scripted model standing in for a real client's model: the step comes from the conversation the client
sent (so retries never move the script on), a client's wait-for-servers tool is used while Tabgate's tools
are not listed yet, and each adapter writes a call in its API's shape under the name the client offered."""

from __future__ import annotations

import json

import pytest

from tests.support.model_apis import ChatCompletions, Gemini, Messages, Responses
from tests.support.scripted_model import Call, Say, ScriptedModel, Turn

pytestmark = pytest.mark.unit

QUERY = Call("browser_tab", {"action": "query"})


def test_the_step_follows_the_tool_results_the_conversation_holds() -> None:
    model = ScriptedModel(Messages(), [QUERY, Say("done")])
    offered = ["Bash", "mcp__tabgate__browser_tab"]
    assert model.next_step(Turn(offered, [])) == (QUERY, "mcp__tabgate__browser_tab")
    assert model.next_step(Turn(offered, [])) == (QUERY, "mcp__tabgate__browser_tab")  # a retry
    assert model.next_step(Turn(offered, ["[]"])) == (Say("done"), None)
    assert model.results == ["[]"] and model.first_result_at is not None


def test_a_tool_not_offered_stops_the_run_saying_so_unless_the_client_can_wait_for_it() -> None:
    step, _ = ScriptedModel(Messages(), [QUERY]).next_step(Turn(["Bash"], []))
    assert isinstance(step, Say) and "no tool browser_tab" in step.text
    model = ScriptedModel(Messages(), [QUERY, Say("done")])
    assert model.next_step(Turn(["WaitForMcpServers"], [])) == (
        Call("WaitForMcpServers", {}),
        "WaitForMcpServers",
    )
    assert model.first_result_at is None
    offered = ["WaitForMcpServers", "mcp__tabgate__browser_tab"]
    assert model.next_step(Turn(offered, ["ready"])) == (QUERY, "mcp__tabgate__browser_tab")
    assert model.next_step(Turn(offered, ["ready", "[]"])) == (Say("done"), None)
    assert model.results == ["[]"]  # the wait's result is not the script's


def test_codex_namespaced_tools_are_offered_and_called_by_namespace_and_name() -> None:
    tools = [
        {"type": "namespace", "name": "mcp__tabgate", "tools": [{"type": "function", "name": "browser_tab"}]}
    ]
    turn = Responses().read("/v1/responses", {"tools": tools, "input": []})
    assert turn.offered == ["mcp__tabgate.browser_tab"]
    _type, body = Responses().reply(QUERY, "mcp__tabgate.browser_tab", "call_0", True)
    done = [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")][1]
    assert done["item"] | {"id": ""} == {
        "type": "function_call",
        "id": "",
        "call_id": "call_0",
        "namespace": "mcp__tabgate",
        "name": "browser_tab",
        "arguments": '{"action": "query"}',
    }


@pytest.mark.parametrize(
    ("api", "path", "body", "results"),
    [
        (Messages(), "/v1/messages", {"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]}, ["ok"]),
        (Gemini(), "/v1beta/models/m:streamGenerateContent?alt=sse", {"contents": [{"parts": [
            {"functionResponse": {"name": "x", "response": {"output": "ok"}}}]}]}, ['{"output": "ok"}']),
        (ChatCompletions(), "/v1/chat/completions", {"messages": [
            {"role": "tool", "tool_call_id": "c", "content": "ok"}]}, ["ok"]),
    ],
)  # fmt: skip
def test_each_api_reads_the_tool_results_the_client_sent_back(
    api: Messages | Gemini | ChatCompletions, path: str, body: dict[str, object], results: list[str]
) -> None:
    assert api.serves(path) and api.read(path, body).results == results
