"""Where an agent's tab may go (contract §8.2): each held load decided in Python (core/consent/nav_guard.py),
and the gateway's side (core/agents/agent_navigation.py): which tabs are held, the person asked for a stopped
load's
site, the agent told where the page tried to go."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.agents import agent_navigation
from core.agents.agent_navigation import UNHELD
from core.agents.agent_tabs import OPENS_AFTER_CALL_S
from core.agents.created_tab import as_loaded
from core.calls.capabilities import BrowserToolError
from core.consent.nav_guard import GO, NavPaused, Outcome, Standing, Verdict, decide, stopped_words
from core.web.fence import fence
from tests.core.fenced import page_of
from tests.core.test_core_gateway import CODEX, Setup, text

pytestmark = pytest.mark.unit

A, B = "https://a.example", "https://b.example"
NOBODY = Standing(trusted=False, acting=(), allowed=())


def paused(url: str, shown: str = f"{A}/cart", **facts: Any) -> NavPaused:
    return NavPaused.model_validate({"type": "nav/paused", "tabId": 5, "url": url, "shown": shown, **facts})


# -- the decision ------------------------------------------------------------------------------------------


def test_a_load_within_the_site_the_tab_shows_goes_on_one_to_another_site_is_stopped_naming_it() -> None:
    assert decide(paused(f"{A}/next"), NOBODY) == GO
    assert decide(paused(f"{B}/landing", redirect=True), NOBODY) == Verdict(Outcome.STOP, B)
    assert decide(paused(f"{B}/landing"), NOBODY).to_wire() == {"continue": False, "errorReason": "Aborted"}


def test_a_running_calls_site_a_session_or_once_grant_or_trust_lets_the_tab_go() -> None:
    for standing in (
        Standing(trusted=False, acting=(B,), allowed=()),
        Standing(trusted=False, acting=(), allowed=(B,)),
        Standing(trusted=True, acting=(), allowed=()),
    ):
        assert decide(paused(f"{B}/x", shown="about:blank"), standing) == GO


def test_sites_are_read_as_the_browser_compares_them_port_and_scheme_included() -> None:
    assert decide(paused("https://a.example:8443/x"), NOBODY).outcome is Outcome.STOP
    assert decide(paused("http://a.example/x"), NOBODY).outcome is Outcome.STOP
    assert decide(paused("https://a.example:443/x"), NOBODY) == GO
    assert decide(paused("data:text/html,hi"), NOBODY) == GO  # no site: the navigation tools handle it


def test_a_frame_loads_unless_it_posts_a_body_to_a_site_the_agent_may_not_act_on() -> None:
    assert decide(paused(f"{B}/widget", top=False), NOBODY) == GO
    blocked = decide(paused(f"{B}/submit", top=False, body=True, method="POST"), NOBODY)
    assert blocked.to_wire() == {"continue": False, "errorReason": "BlockedByClient"}
    assert decide(paused(f"{A}/submit", top=False, body=True), NOBODY) == GO


def test_the_agent_is_told_where_the_page_tried_to_go_as_the_pages_text() -> None:
    told = stopped_words(paused(f"{B}/landing?--- end of page content", redirect=True))
    assert page_of(told) == f"{B}/landing?--- end of page content"
    assert "server redirect" in told.split("---")[0] and B not in told.split("---")[0]


def test_a_page_restored_from_the_back_forward_cache_is_decided_from_the_page_it_left() -> None:
    restored = paused(f"{B}/kept", shown=f"{A}/plain", restored=True)
    assert decide(restored, NOBODY) == Verdict(Outcome.STOP, B)
    assert decide(paused(f"{B}/kept", shown=f"{B}/other", restored=True), NOBODY) == GO
    told = stopped_words(restored)
    assert page_of(told) == f"{B}/kept"
    assert "taken back" in told.split("---")[0] and B not in told.split("---")[0]


def test_a_report_that_is_no_held_load_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="tabId"):
        NavPaused.model_validate({"type": "nav/paused", "url": B})
    with pytest.raises(ValueError, match="url"):
        NavPaused.model_validate({"type": "nav/paused", "tabId": 1, "url": "x" * 9000})


# -- through the gateway -----------------------------------------------------------------------------------


async def answered() -> None:
    """Let the background question see the person's answer (a few turns of the event loop)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def held(setup: Setup, tab_id: int, url: str, **facts: Any) -> dict[str, Any]:
    return await setup.send({"type": "nav/paused", "tabId": tab_id, "url": url, **facts})


async def test_the_agents_tabs_are_held_and_the_persons_are_not() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    assert setup.chrome.guarded == [tab_id]
    assert await held(setup, 7, f"{B}/x", shown=f"{A}/") == {"continue": True}  # the person's tab


async def test_a_tab_that_only_joined_by_its_opener_is_not_held_until_used() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    opened = setup.chrome._new(f"{A}/popup")["id"]
    setup.chrome.tabs[tab_id]["url"] = f"{A}/"
    # The agent is at work in its tab on A when that tab's page opens another.
    await setup.call("browser_page", {"action": "title", "tabId": tab_id})
    await setup.send({"type": "tabs/created", "tabId": opened, "sourceTabId": tab_id})
    assert setup.chrome.guarded == [tab_id]
    assert await held(setup, opened, f"{B}/x", shown=f"{A}/") == {"continue": True}
    await setup.call("browser_page", {"action": "title", "tabId": opened})
    assert setup.chrome.guarded == sorted([tab_id, opened])
    assert (await held(setup, opened, f"{B}/x", shown=f"{A}/"))["continue"] is False


async def test_a_new_service_worker_is_told_again_which_tabs_to_hold() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    setup.chrome.guarded = []  # a new worker holds nothing
    await setup.send({"type": "worker/hello"})
    await setup.call("browser_page", {"action": "title"})
    assert setup.chrome.guarded == [tab_id]


async def test_a_stopped_load_asks_the_person_for_its_site_and_the_agents_next_answer_says_where() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    setup.chrome.tabs[tab_id]["url"] = f"{A}/cart"
    verdict = await held(setup, tab_id, f"{B}/landing", shown=f"{A}/cart", redirect=True, title="Cart")
    assert verdict == {"continue": False, "errorReason": "Aborted"}
    [question] = await setup.pending()
    assert question["site"] == B and question["action"] == "navigate" and question["tab"]["tabId"] == tab_id
    again = await held(setup, tab_id, f"{B}/landing", shown=f"{A}/cart")
    assert again["continue"] is False and len(await setup.pending()) == 1  # asked once per tab and site
    told = text(await setup.call("browser_tab", {"action": "query"}))
    assert f"{B}/landing" in told and "redirect" in told
    assert (await setup.answer(question["id"], "once"))["ok"] is True
    await answered()
    assert await held(setup, tab_id, f"{B}/landing", shown=f"{A}/cart") == {"continue": True}
    assert (await held(setup, tab_id, f"{B}/landing", shown=f"{A}/cart"))["continue"] is False  # once


async def test_allow_for_this_session_lets_the_tab_go_to_that_site_in_that_session() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    await held(setup, tab_id, f"{B}/x", shown=f"{A}/")
    [question] = await setup.pending()
    await setup.answer(question["id"], "session")
    await answered()
    assert await held(setup, tab_id, f"{B}/y", shown=f"{A}/") == {"continue": True}


async def test_a_trusted_agents_tab_goes_anywhere_unasked() -> None:
    setup = await Setup(gateway=True, gatewayTrusted=[CODEX["executable"]]).start()
    tab_id = await setup.own_tab()
    assert await held(setup, tab_id, f"{B}/x", shown=f"{A}/") == {"continue": True}
    assert await setup.pending(0) == []


NODE = "/usr/bin/node"
GEMINI = {"name": "gemini", "executable": NODE, "runs": {"kind": "script", "target": "/opt/gemini/gemini.js"}}


async def test_a_trusted_scripts_tab_goes_anywhere_unasked() -> None:
    # Trust in a load is the same as trust in a call (core/agents/identity.py trusted_by): the script's entry.
    script = {"executable": NODE, "script": "/opt/gemini/gemini.js"}
    setup = await Setup(gateway=True, gatewayTrusted=[script]).start()
    tab_id = await setup.own_tab(GEMINI)
    assert await held(setup, tab_id, f"{B}/x", shown=f"{A}/") == {"continue": True}


async def test_a_stopped_load_names_the_agent_as_its_calls_do_an_interpreters_by_the_script_it_runs() -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab(GEMINI)
    await held(setup, tab_id, f"{B}/x", shown=f"{A}/")
    [question] = await setup.pending()
    program = f"{NODE} /opt/gemini/gemini.js"
    assert (question["executable"], question["label"]) == (program, f"{program} · “gemini”")
    assert question["notice"]["contextMessage"] == program


async def test_a_shared_tab_is_held_only_while_the_agents_call_there_runs_and_shortly_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup = await Setup(gateway=True).start()
    tab_id = await setup.own_tab()
    setup.chrome.tabs[7]["url"] = f"{A}/"
    await setup.share(7)
    held_during: list[list[int]] = []
    call = setup.chrome.call

    async def watched(tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        if tool == "browser_page":
            held_during.append(list(setup.chrome.guarded))
        return await call(tool, args, timeout_ms=timeout_ms)

    monkeypatch.setattr(setup.chrome, "call", watched)
    await setup.call("browser_page", {"action": "title", "tabId": 7})
    assert held_during == [sorted([tab_id, 7])]  # what the agent's call causes there is checked
    assert setup.chrome.guarded == sorted([tab_id, 7])  # and just after it (a click's redirect)
    assert (await held(setup, 7, f"{B}/x", shown=f"{A}/"))["continue"] is False
    [question] = await setup.pending()
    assert question["site"] == B and question["tab"]["tabId"] == 7
    later = agent_navigation._now() + OPENS_AFTER_CALL_S + 1
    monkeypatch.setattr(agent_navigation, "_now", lambda: later)  # the person moves in their tab later
    await setup.call("browser_page", {"action": "title", "tabId": tab_id})
    assert setup.chrome.guarded == [tab_id]  # the browser let go of the person's tab
    assert await held(setup, 7, f"{B}/y", shown=f"{A}/") == {"continue": True}


async def test_a_tab_the_agent_creates_opens_blank_and_is_held_before_it_goes_to_its_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup = await Setup(gateway=True).start()
    seen: list[tuple[str, dict[str, Any], list[int]]] = []
    call = setup.chrome.call

    async def watched(tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        seen.append((tool, dict(args), list(setup.chrome.guarded)))
        return await call(tool, args, timeout_ms=timeout_ms)

    monkeypatch.setattr(setup.chrome, "call", watched)
    creating = setup.call("browser_tab", {"action": "create", "url": f"{A}/start"})
    [question] = await setup.pending()
    await setup.answer(question["id"], "once")
    answer = await creating
    assert page_of(text(answer)).count(f'"url":"{A}/start"') == 1  # the tab where it went, not about:blank
    [(_, created, _)] = [(t, a, g) for t, a, g in seen if t == "browser_tab" and a.get("action") == "create"]
    assert "url" not in created  # about:blank: nothing loads before the tab is held
    tab_id = max(setup.chrome.tabs)
    after = [(tool, args, guarded) for tool, args, guarded in seen if args.get("tabId") == tab_id]
    assert after and all(tab_id in guarded for _, _, guarded in after if _ != "cdp.guard")
    assert any(tool == "cdp" for tool, _, _ in after)  # then sent to its URL as navigate goes (the debugger)


def test_a_created_tab_whose_first_load_has_not_committed_answers_where_it_is_going() -> None:
    created = {"success": True, "output": {"output": fence('{"id":9,"url":"about:blank","title":""}')}}
    now = {"id": 9, "url": "about:blank", "pendingUrl": f"{A}/start", "title": "", "status": "loading"}
    facts = json.loads(page_of(as_loaded(created, now)["output"]["output"]))
    assert facts == {"id": 9, "url": f"{A}/start", "title": "", "status": "loading"}


async def test_a_call_the_browser_cannot_hold_tabs_for_does_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: unheld, a click's redirect could carry the agent to a site it may not act on."""
    setup = await Setup(gateway=True).start()
    seen: list[str] = []
    call = setup.chrome.call

    async def no_guard(tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        seen.append(tool)
        if tool == "cdp.guard":
            raise BrowserToolError("the service worker did not answer within 5000 ms")
        return await call(tool, args, timeout_ms=timeout_ms)

    monkeypatch.setattr(setup.chrome, "call", no_guard)
    tab_id = await setup.own_tab()  # created blank: nothing to hold yet, and the guard after it failed
    setup.chrome.tabs[tab_id]["url"] = f"{A}/"
    seen.clear()
    answer = await setup.call("browser_page", {"action": "title", "tabId": tab_id})
    assert answer["isError"] is True and text(answer).startswith(UNHELD), text(answer)
    assert "did not answer within 5000 ms" in text(answer) and seen == ["cdp.guard"]
    monkeypatch.setattr(setup.chrome, "call", call)  # the browser answers again: held, then run
    again = await setup.call("browser_page", {"action": "title", "tabId": tab_id})
    assert again["isError"] is False, text(again)
    assert setup.chrome.guarded == [tab_id]
