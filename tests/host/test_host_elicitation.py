"""Servers' elicitation requests reach the browser and its answer reaches the server (issue 13), through a
real host and a real SDK server (`live_server.py`'s `ask` and `visit`); the browser side answers as the
service worker would. The same server runs twice: `live` on the default handshake (a 2026-07-28 connection,
where the question comes as an `input_required` answer to the call) and `old` on `handshake = "legacy"` (an
`elicitation/create` request during the call); the browser sees the same request either way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import HostDirs, running_host, stdio_server
from hostproc import BrowserRefusal, FakeBrowserSide, HostError, HostProcess

pytestmark = pytest.mark.host

ANSWERS: dict[str, Any] = {}  # the next answer per mode; a BrowserRefusal is sent as a JSON-RPC error


def answer(method: str, params: dict[str, Any]) -> Any:
    assert method == "elicitation/create", method
    reply = ANSWERS[params.get("mode", "form")]
    if isinstance(reply, BrowserRefusal):
        raise reply
    return reply


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HostProcess, FakeBrowserSide]]:
    dirs = HostDirs.under(tmp_path_factory.mktemp("elicitation"))
    config = stdio_server("live", "live_server.py", extra="tool_timeout_sec = 30") + stdio_server(
        "old", "live_server.py", extra='tool_timeout_sec = 30\nhandshake = "legacy"'
    )
    with running_host(dirs, config) as host:
        host.initialize()
        host.wait_ready("live", "old")
        browser = FakeBrowserSide(host, answer)
        try:
            yield host, browser
        finally:
            browser.stop()


def ask(host: HostProcess, tool: str, arguments: dict[str, Any], server: str = "live") -> dict[str, Any]:
    result: dict[str, Any] = host.call("tools/call", {"server": server, "tool": tool, "arguments": arguments})
    return result


ERAS = pytest.mark.parametrize("server", ["live", "old"])  # 2026-07-28 and initialize-era connections


@ERAS
def test_a_form_request_reaches_the_browser_with_the_server_and_its_time_limit(
    host: tuple[HostProcess, FakeBrowserSide], server: str
) -> None:
    process, browser = host
    ANSWERS["form"] = {"action": "accept", "content": {"answer": "forty-two", "sure": True}}
    result = ask(process, "ask", {"question": "What is the answer?"}, server)
    assert result["content"][0]["text"] == "accept: forty-two (sure: True)"
    request = browser.seen[-1]["params"]
    assert request["server"] == server
    assert request["mode"] == "form"
    assert request["message"] == "What is the answer?"
    assert request["timeoutMs"] == 30_000
    assert request["requestedSchema"]["properties"]["answer"]["description"] == "What you answer"


@ERAS
@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_reach_the_server_without_content(
    host: tuple[HostProcess, FakeBrowserSide], action: str, server: str
) -> None:
    process, _ = host
    ANSWERS["form"] = {"action": action, "content": {"answer": "leaked?"}}
    assert ask(process, "ask", {"question": "Anything?"}, server)["content"][0]["text"] == action


def test_a_url_request_carries_the_url_and_its_answer(host: tuple[HostProcess, FakeBrowserSide]) -> None:
    process, browser = host
    ANSWERS["url"] = {"action": "accept"}
    assert ask(process, "visit", {"url": "https://example.org/pay"}, "old")["content"][0]["text"] == "accept"
    request = browser.seen[-1]["params"]
    assert (request["mode"], request["url"], request["elicitationId"]) == (
        "url",
        "https://example.org/pay",
        "visit-1",
    )


@ERAS
def test_an_unanswered_request_fails_the_tool_with_why(
    host: tuple[HostProcess, FakeBrowserSide], server: str
) -> None:
    process, _ = host
    ANSWERS["form"] = BrowserRefusal(-32001, "nobody answered within 30 s")
    # The SDK server turns the client's error into its own error for the call (2026: the host does not call
    # again), which the host passes on.
    with pytest.raises(HostError, match="Tabgate could not ask the user: nobody answered within 30 s"):
        ask(process, "ask", {"question": "Still there?"}, server)


@ERAS
def test_an_answer_that_is_not_an_elicitation_result_is_not_passed_on(
    host: tuple[HostProcess, FakeBrowserSide], server: str
) -> None:
    process, _ = host
    ANSWERS["form"] = {"action": "shrug"}
    with pytest.raises(HostError, match="the browser's answer is not an elicitation result"):
        ask(process, "ask", {"question": "Well?"}, server)
