"""The person's controls hold, end to end (contract §8.2): real agents (the `mcp` SDK starting
`tabgate-host mcp` as codex and Cursor do) ask to click a page; the person pauses, answers, resumes and reads
the questions in the popup. A question answered while agents are paused clicks nothing until they resume (then
it runs, as answered); a fifth waiting question from one agent is refused at once; many questions are grouped
by agent."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Page, Playwright, expect

from tests.e2e.test_agents_view import popup_over, shoot
from tests.support.agents import (
    AgentThread,
    codex_config,
    json_config,
    params_from_codex,
    params_from_json,
    text_of,
    wait_listed,
)
from tests.support.browser import Extension
from tests.support.gateway_browser import (
    agent_id,
    browser,
    env,
    gateway,
    person_tab_id,
    profile,
    site,
    wait_pending,
)
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

__all__ = ["env", "profile", "site"]  # the shared module fixtures, imported for this module's tests

TOO_MANY = "4 questions from this agent are already waiting for the person"


@pytest.fixture(scope="module")
def ext(pw: Playwright, profile: Path, env: dict[str, str]) -> Iterator[Extension]:
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        yield ext
        gateway(ext, False)


@pytest.fixture(autouse=True)
def resumed(ext: Extension) -> Iterator[None]:
    """Each test leaves agents resumed and no question waiting, whatever it ends with."""
    yield
    ext.send({"type": "agents/pause", "paused": False})
    deny_all(ext)


def clicks_on(tab: dict[str, int], go: threading.Event, count: int = 1) -> Any:
    """An agent's body: once `go` is set, `count` clicks on the Buy button of tab `tab["id"]` at once."""

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(go.wait, 90)
        results: list[types.CallToolResult] = []

        async def click() -> None:
            arguments = {"action": "click", "selector": "#buy", "tabId": tab["id"]}
            results.append(await client.call_tool("browser_dom", arguments))

        async with anyio.create_task_group() as group:
            for _ in range(count):
                group.start_soon(click)
        return results

    return body


def start_agent(
    ext: Extension, name: str, tab: dict[str, int], count: int = 1, text: str | None = None
) -> AgentThread:
    """An agent (codex's config, or Cursor's) that clicks `count` times at once on the person's shared tab,
    or types `text` into its #note."""
    go = threading.Event()
    params = params_from_codex(codex_config()) if name == "codex" else params_from_json(json_config())
    body = clicks_on(tab, go, count) if text is None else types_into(tab, go, text)
    running = AgentThread(params, body, name)
    running.start()
    ext.send({"type": "agents/share", "id": agent_id(ext, name), "tabId": tab["id"], "shared": True})
    go.set()
    return running


# A field whose page takes 40 ms over each key: an agent's typing into it lasts seconds.
SLOW_FIELD = """() => {
  const field = Object.assign(document.createElement("input"), {id: "note"});
  field.setAttribute("aria-label", "Note");
  field.addEventListener("keydown", () => { const until = Date.now() + 40; while (Date.now() < until) {} });
  document.body.append(field);
}"""


def types_into(tab: dict[str, int], go: threading.Event, text: str) -> Any:
    """An agent's body: once `go` is set, types `text` into #note on tab `tab["id"]`."""

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(go.wait, 90)
        arguments = {"action": "type", "selector": "#note", "text": text, "tabId": tab["id"]}
        return [await client.call_tool("browser_dom", arguments)]

    return body


def never_clicked(page: Page, seconds: float) -> None:
    """The page sees no click for `seconds` (what a held call would do, it would do by then)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert page.locator("#count").inner_text() == "clicks: 0", "the click ran while agents were paused"
        time.sleep(0.1)


def badge(ext: Extension) -> str:
    text: str = ext.page.evaluate("() => chrome.action.getBadgeText({})")
    return text


def deny_all(ext: Extension) -> None:
    for request in ext.send({"type": "approvals"})["pending"]:
        ext.send({"type": "approval/answer", "id": request["id"], "decision": "deny"})


def test_a_question_answered_while_agents_are_paused_clicks_nothing_until_the_person_resumes(
    ext: Extension, site: str
) -> None:
    popup, page = popup_over(ext, site)
    tab = {"id": person_tab_id(ext, page.url)}
    running = start_agent(ext, "codex", tab)
    [request] = wait_pending(ext)
    question = popup.locator(f'li.approval[data-approval="{request["id"]}"]')
    expect(question).to_be_visible()

    pause = popup.locator("#agents-pause")
    pause.click()  # the question was already waiting
    expect(pause).to_have_attribute("aria-pressed", "true")
    question.locator('button[data-decision="once"]').click()
    never_clicked(page, 2.0)
    # Shown as paused: allowed, not run; the badge counts no question left for the person.
    expect(question).to_have_attribute("data-paused", "true")
    expect(question).to_have_attribute("data-held", "true")
    expect(question).to_contain_text("it runs when you resume agents")
    wait_for(lambda: badge(ext) == "", "the badge still counts a question the person answered")
    shoot(popup, "popup-approval-paused")
    assert running.is_alive()  # the agent still waits for its answer

    pause.click()  # resumed: the call runs as the person answered it
    expect(page.locator("#count")).to_have_text("clicks: 1")
    [clicked] = running.outcome()
    assert clicked.is_error is False, text_of(clicked)
    expect(question).to_have_count(0)
    popup.close()
    page.close()


def test_a_fifth_waiting_question_from_one_agent_is_refused_at_once(ext: Extension, site: str) -> None:
    popup, page = popup_over(ext, site)
    tab = {"id": person_tab_id(ext, page.url)}
    first = start_agent(ext, "codex", tab, count=4)
    wait_for(lambda: len(ext.send({"type": "approvals"})["pending"]) == 4, "four questions waiting")
    # Another session of the same program: the bound is the agent's, not the connection's.
    [refused] = start_agent(ext, "codex", tab).outcome(timeout=60)
    assert refused.is_error is True and text_of(refused).startswith(TOO_MANY), text_of(refused)
    assert len(ext.send({"type": "approvals"})["pending"]) == 4  # nobody was asked the fifth
    deny_all(ext)
    assert [result.is_error for result in first.outcome()] == [True] * 4
    assert page.locator("#count").inner_text() == "clicks: 0"
    popup.close()
    page.close()


def test_many_waiting_questions_are_grouped_by_agent_in_the_popup_with_the_badge_counting_each(
    ext: Extension, site: str
) -> None:
    popup, page = popup_over(ext, site)
    tab = {"id": person_tab_id(ext, page.url)}
    agents = [start_agent(ext, "codex", tab, count=4), start_agent(ext, "cursor", tab, count=2)]
    wait_for(lambda: len(ext.send({"type": "approvals"})["pending"]) == 6, "six questions waiting")
    codex_id, cursor_id = agent_id(ext, "codex"), agent_id(ext, "cursor")
    groups = popup.locator("#approvals > li.approval-group")
    expect(groups).to_have_count(2)
    codex_group = popup.locator(f'li.approval-group[data-agent="{codex_id}"]')
    cursor_group = popup.locator(f'li.approval-group[data-agent="{cursor_id}"]')
    # The program the OS reports comes first, then the name the agent gave (ui_approvals.js agentWho).
    expect(codex_group.locator("summary .agent-program")).to_contain_text("/")
    expect(codex_group.locator("summary .agent-name")).to_have_text(" “codex”")
    expect(codex_group.locator("summary")).to_contain_text("4 questions waiting")
    expect(cursor_group.locator("summary")).to_contain_text("2 questions waiting")
    expect(popup.locator("li.approval:visible")).to_have_count(0)  # folded: one row per agent
    assert wait_for(lambda: badge(ext) == "6", "the badge does not count six questions")
    shoot(popup, "popup-approvals-grouped")

    codex_group.locator("summary").click()  # opened to answer each
    expect(codex_group.locator("li.approval:visible")).to_have_count(4)
    shoot(popup, "popup-approvals-grouped-open")
    codex_group.locator('li.approval button[data-decision="deny"]').first.click()
    expect(codex_group.locator("summary")).to_contain_text("3 questions waiting")
    expect(codex_group.locator("li.approval:visible")).to_have_count(3)  # stays open while the list changes
    wait_for(lambda: badge(ext) == "5", "the badge does not count five questions")
    deny_all(ext)
    for running in agents:
        assert all(result.is_error for result in running.outcome())
    expect(groups).to_have_count(0)
    assert page.locator("#count").inner_text() == "clicks: 0"
    popup.close()
    page.close()


# What the agent is told, by control: the core stops the call, or (agents turned off) the host closes the
# agent's connection and the core then stops the call.
STOPPED_BY = {
    "stop": "The call was stopped: ",
    "pause": "The call was stopped: ",
    "unshare": "The call was stopped: ",
    "off": "The call was stopped: the person turned off agents in Tabgate.",
}


@pytest.mark.parametrize("control", list(STOPPED_BY))
def test_stopping_or_pausing_agents_while_one_types_stops_its_keys(
    ext: Extension, site: str, control: str
) -> None:
    # Typing is one command list in the service worker: a stop or a pause used to end the agent's call while
    # the worker went on typing the rest (about 24 more keys a second into this page).
    popup, page = popup_over(ext, site)
    page.evaluate(SLOW_FIELD)
    tab = {"id": person_tab_id(ext, page.url)}
    running = start_agent(ext, "codex", tab, text="x" * 300)
    codex = agent_id(ext, "codex")
    [request] = wait_pending(ext)
    assert ext.send({"type": "approval/answer", "id": request["id"], "decision": "once"}) == {"ok": True}
    field = page.locator("#note")
    wait_for(lambda: len(field.input_value()) >= 5, "the agent's typing to begin")
    try:
        if control == "stop":
            assert ext.send({"type": "agents/stop", "id": codex}) == {"stopped": 1}
        elif control == "unshare":  # *Stop sharing* the tab it types into
            shared = {"type": "agents/share", "id": codex, "tabId": tab["id"], "shared": False}
            assert ext.send(shared) == {"ok": True}
        elif control == "off":  # *Let agents use Tabgate* turned off
            gateway(ext, False)
        else:
            assert ext.send({"type": "agents/pause", "paused": True}) == {"paused": True}
        [typed] = running.outcome()
        assert typed.is_error is True and text_of(typed).startswith(STOPPED_BY[control]), text_of(typed)
        at_end = len(field.input_value())
        time.sleep(1.0)
        assert len(field.input_value()) <= at_end + 1 < 300  # a key on its way when it ended may still land
    finally:
        if control == "off":
            gateway(ext, True)  # for the module's other tests
    popup.close()
    page.close()


def test_the_persons_cancel_in_the_popup_stops_their_own_browser_call_while_it_types(
    ext: Extension, site: str
) -> None:
    """Any running call has a Cancel, not only an MCP call's: typing 300 characters into a slow field, stopped
    at the fifth, sends no more keys."""
    popup, page = popup_over(ext, site)
    page.evaluate(SLOW_FIELD)
    tab_id = person_tab_id(ext, page.url)
    popup.bring_to_front()
    popup.locator('button.tool[data-tool="browser_dom"]').click()
    popup.locator("#raw-toggle").check()
    arguments = {"action": "type", "tabId": tab_id, "selector": "#note", "text": "x" * 300}
    popup.locator("#raw-json").fill(json.dumps(arguments))
    popup.locator("#run").click()
    field = page.locator("#note")
    wait_for(lambda: len(field.input_value()) >= 5, "the typing to begin")
    expect(popup.locator("#cancel")).to_be_visible()
    popup.locator("#cancel").click()
    result = popup.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "cancelled")
    at_end = len(field.input_value())
    time.sleep(1.0)
    assert len(field.input_value()) <= at_end + 1 < 300  # a key on its way when it ended may still land
    [entry] = [e for e in ext.send({"type": "history"}) if e["name"] == "browser_dom"][:1]
    assert entry["status"] == "stopped"
    popup.close()
    page.close()
