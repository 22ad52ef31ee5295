"""A server that speaks only 2026-07-28 (servers/only_2026_server.py: the SDK's MCPServer over stateless
streamable HTTP, refusing `initialize`), reached through a real host on the default `handshake = "auto"` and
with no Authorization of its own (so the host's OAuth wraps its requests): it is ready, lists and calls; the
person answers its `input_required` questions for a tool, a prompt and a resource through the browser (MRTR,
`requestState` echoed); a tool it adds reaches the host's tools/list through the `subscriptions/listen`
stream; and its sampling question is refused with an error that says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import HostDirs, running_host, toml_str
from hostproc import FakeBrowserSide, HostError, HostProcess

from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host

SERVER = "modern"
ASKED: list[dict[str, Any]] = []  # what the browser was asked, in order
# What the person types, by the field the server's form asks for.
TYPED = {"answer": "yes", "name": "Ada", "passphrase": "sesame"}


def person(method: str, params: dict[str, Any]) -> Any:
    assert method == "elicitation/create", method
    ASKED.append(params)
    fields = params["requestedSchema"]["properties"]
    return {"action": "accept", "content": {field: TYPED[field] for field in fields}}


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    dirs = HostDirs.under(tmp_path_factory.mktemp("modern"))
    with serving("only_2026_server.py", "http") as origin:
        url = endpoint(origin, "http")
        config = f"[mcp_servers.{SERVER}]\nurl = {toml_str(url)}\ntool_timeout_sec = 30\n"
        with running_host(dirs, config) as process:
            process.initialize()
            process.wait_ready(SERVER)
            browser = FakeBrowserSide(process, person)
            try:
                yield process
            finally:
                browser.stop()


def tool_names(host: HostProcess) -> set[str]:
    return {tool["name"] for tool in host.call("tools/list", {"server": SERVER})["tools"]}


def test_a_server_of_2026_only_is_ready_and_lists_and_calls(host: HostProcess) -> None:
    [status] = [s for s in host.call("servers/list")["servers"] if s["name"] == SERVER]
    assert status["status"] == "ready", status
    assert {"echo", "confirm", "grow"} <= tool_names(host)
    answer = host.call("tools/call", {"server": SERVER, "tool": "echo", "arguments": {"text": "hi"}})
    assert answer["content"] == [{"type": "text", "text": "hi"}]


def test_a_tool_call_asks_the_person_and_retries_with_the_answer(host: HostProcess) -> None:
    call = {"server": SERVER, "tool": "confirm", "arguments": {"question": "Go on?"}}
    answer = host.call("tools/call", call)
    assert answer["content"][0]["text"] == "accept: yes"
    assert ASKED[-1]["server"] == SERVER and ASKED[-1]["message"] == "Go on?"


def test_a_prompt_asks_the_person_and_retries_with_the_answer(host: HostProcess) -> None:
    prompt = host.call("prompts/get", {"server": SERVER, "name": "greet"})
    assert prompt["messages"][0]["content"]["text"] == "Hello, Ada!"
    assert ASKED[-1]["message"] == "What is your name?"


def test_a_resource_read_asks_the_person_and_retries_with_the_answer(host: HostProcess) -> None:
    read = host.call("resources/read", {"server": SERVER, "uri": "vault://box"})
    assert read["contents"][0]["text"] == "box opened with sesame"
    assert ASKED[-1]["message"] == "Passphrase for box?"


def test_a_tool_the_server_adds_reaches_the_tool_list_through_its_listen_stream(host: HostProcess) -> None:
    assert "sprout" not in tool_names(host)
    host.call("tools/call", {"server": SERVER, "tool": "grow", "arguments": {"name": "sprout"}})
    host.wait_for(
        lambda notes: any(
            n["method"] == "notifications/tools/list_changed" and n["params"]["server"] == SERVER
            for n in notes
        )
    )
    assert "sprout" in tool_names(host)
    answer = host.call("tools/call", {"server": SERVER, "tool": "sprout", "arguments": {}})
    assert answer["content"][0]["text"] == "grown:sprout"


def test_a_sampling_question_is_refused_saying_so(host: HostProcess) -> None:
    with pytest.raises(HostError) as refused:
        host.call("tools/call", {"server": SERVER, "tool": "draw", "arguments": {}})
    assert "sampling" in refused.value.message
    assert refused.value.data["server"] == SERVER
