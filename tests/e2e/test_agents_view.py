"""The popup as the agents' control room (contract §9), end to end: two agents started by the `mcp` SDK as
codex and Cursor start `tabgate-host mcp` (their default environments), through the host Chrome started, to
Python and the page; the person works in the popup (a popup page in a tab of its own, while the site's tab is
the active one, as when the popup opens over it) and, with no popup open, from a notification."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Page, Playwright, expect

from tests.support.agents import (
    AgentThread,
    codex_config,
    json_config,
    params_from_codex,
    params_from_json,
    text_of,
    wait_listed,
)
from tests.support.axe import ARTIFACTS, assert_accessible
from tests.support.browser import Extension
from tests.support.gateway_browser import (
    BUTTON_TITLE,
    agent_id,
    browser,
    env,
    gateway,
    notifications,
    open_popup,
    open_site_tab,
    person_tab_id,
    profile,
    site,
    wait_pending,
)
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

__all__ = ["env", "profile", "site"]  # the shared module fixtures, imported for this module's tests


def popup_over(ext: Extension, site: str) -> tuple[Page, Page]:
    """The popup, and the site's tab in front of it (the tab *Share this tab with …* offers)."""
    popup = open_popup(ext)
    popup.set_viewport_size({"width": 480, "height": 600})
    return popup, open_site_tab(ext, site)


def shoot(popup: Page, name: str) -> None:
    """The popup's header (where the agents are) in light and dark, kept as
    dist/artifacts/<name>-<scheme>.png, each with no axe violation on the whole page."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        popup.emulate_media(color_scheme=scheme)
        popup.locator("header").screenshot(path=str(ARTIFACTS / f"{name}-{scheme}.png"))
        assert_accessible(popup)
    popup.emulate_media(color_scheme="light")


def card(popup: Page, agent: str) -> Any:
    return popup.locator(f'li.agent-card[data-agent="{agent}"]')


def test_the_popup_shows_both_agents_their_tabs_and_calls_and_stops_pauses_and_shares(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    tab: dict[str, int] = {}
    steps = {name: threading.Event() for name in ("wait", "click", "paused", "unshared", "leave")}

    async def step(name: str) -> None:
        await anyio.to_thread.run_sync(steps[name].wait, 90)

    async def codex(client: Client, _notices: list[Any]) -> dict[str, types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        on_tab = {"tabId": tab["id"]}
        results = {}
        await step("wait")
        wait = {
            "action": "wait_for",
            "text": "never on this page",
            "timeoutMs": 25_000,
        }  # the longest it may wait
        results["wait"] = await client.call_tool("browser_dom", wait | on_tab)
        await step("click")
        results["click"] = await client.call_tool(
            "browser_dom", {"action": "click", "selector": "#buy"} | on_tab
        )
        await step("paused")
        results["paused read"] = await client.call_tool("browser_page", {"action": "title"} | on_tab)
        results["paused act"] = await client.call_tool(
            "browser_dom", {"action": "click", "selector": "#buy"} | on_tab
        )
        await step("unshared")
        results["unshared"] = await client.call_tool("browser_page", {"action": "title"} | on_tab)
        return results

    async def cursor(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_page" in n)
        # No tab given and none of its own yet: Tabgate opens one in its group (reading asks nobody).
        read = await client.call_tool("browser_navigation", {"action": "current_url"})
        await step("leave")
        return read

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        popup, page = popup_over(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        agents = [
            AgentThread(params_from_codex(codex_config()), codex, "codex"),
            AgentThread(params_from_json(json_config()), cursor, "cursor"),
        ]
        for running in agents:
            running.start()
        codex_id, cursor_id = agent_id(ext, "codex"), agent_id(ext, "cursor")
        wait_for(lambda: ext.send({"type": "agents"})["agents"][1]["tabs"], "cursor has no tab of its own")

        # Share the site's tab with codex from the popup: the active tab is offered to each connected agent.
        share = popup.locator(f'#agent-share button[data-share-agent="{codex_id}"]')
        expect(share).to_have_text("Share this tab with codex")
        expect(popup.locator(f'#agent-share button[data-share-agent="{cursor_id}"]')).to_have_text(
            "Share this tab with cursor"
        )
        share.click()
        expect(share).to_have_text("Stop sharing this tab with codex")
        codex_card, cursor_card = card(popup, codex_id), card(popup, cursor_id)
        program = program_of(ext, codex_id)
        assert program.startswith("/")  # the program that started tabgate-host mcp, from the OS
        expect(codex_card.locator(".agent-label")).to_have_text(f"{program} “codex”")  # program, then name
        expect(codex_card).to_contain_text("connected")
        expect(codex_card.locator(f'li.agent-tab[data-tab="{tab["id"]}"]')).to_contain_text(BUTTON_TITLE)
        expect(codex_card.locator(f'li.agent-tab[data-tab="{tab["id"]}"]')).to_contain_text(site)
        expect(codex_card.locator(f'li.agent-tab[data-tab="{tab["id"]}"]')).to_contain_text("shared by you")
        expect(cursor_card.locator("li.agent-tab")).to_have_count(1)  # its own tab, opened for it
        expect(cursor_card.locator("li.agent-tab button")).to_have_count(0)  # its own: nothing to take back
        shoot(popup, "popup-agents")

        # A running call shows in plain words with its time so far, and Stop ends it.
        steps["wait"].set()
        call = codex_card.locator("li.agent-call")
        expect(call).to_contain_text(f"wait until “never on this page” appears in tab {tab['id']}")
        expect(call).to_contain_text(f"on {site}")
        elapsed = call.locator(".elapsed")
        first = elapsed.inner_text()
        wait_for(lambda: elapsed.inner_text() != first, "the time so far does not move on")
        shoot(popup, "popup-agents-running")
        codex_card.locator(f'button[data-stop="{codex_id}"]').click()
        expect(call).to_have_count(0)

        # An acting call's question names the target in plain words; the person answers it in the popup.
        steps["click"].set()
        question = popup.locator("li.approval")
        expect(question).to_contain_text(
            f"click the element matching “#buy” in tab {tab['id']} “{BUTTON_TITLE}” on {site}"
        )
        expect(codex_card).to_contain_text("1 request(s) waiting above")
        expect(codex_card.locator("li.agent-call")).to_contain_text("waiting for your answer")
        shoot(popup, "popup-agents-approval")
        question.locator('button[data-decision="once"]').click()
        expect(page.locator("#count")).to_have_text("clicks: 1")

        # Pause all agents: acting is refused, reading goes on.
        pause = popup.locator("#agents-pause")
        pause.click()
        expect(pause).to_have_attribute("aria-pressed", "true")
        expect(pause).to_have_text("Resume agents")
        expect(popup.locator("#agents-paused-note")).to_be_visible()
        shoot(popup, "popup-agents-paused")
        steps["paused"].set()
        wait_for(
            lambda: (
                ext.send({"type": "agents/activity", "id": codex_id})["entries"][0]["outcome"] == "denied"
            ),
            "the acting call was not refused",
        )
        pause.click()
        expect(pause).to_have_attribute("aria-pressed", "false")

        # Stop sharing from the agent's card: the tab is no longer the agent's.
        codex_card.locator(f'button[data-unshare="{tab["id"]}"]').click()
        expect(codex_card.locator("li.agent-tab")).to_have_count(0)
        expect(share).to_have_text("Share this tab with codex")
        steps["unshared"].set()
        steps["leave"].set()
        results = agents[0].outcome()
        cursor_read = agents[1].outcome()

        stopped = results["wait"]
        assert stopped.is_error is True and "stopped by the person" in text_of(stopped), text_of(stopped)
        assert results["click"].is_error is False, text_of(results["click"])
        assert results["paused read"].is_error is False and BUTTON_TITLE in text_of(results["paused read"])
        assert results["paused act"].is_error is True and "paused by the person" in text_of(
            results["paused act"]
        )
        assert results["unshared"].is_error is True and "not one of your tabs" in text_of(results["unshared"])
        assert cursor_read.is_error is False and "about:blank" in text_of(cursor_read), text_of(cursor_read)
        assert page.locator("#count").inner_text() == "clicks: 1"  # the paused click never reached the page
        gateway(ext, False)


def program_of(ext: Extension, agent: str) -> str:
    return str(next(a["program"] for a in ext.send({"type": "agents"})["agents"] if a["id"] == agent))


def test_with_no_popup_open_a_notification_raises_the_question_and_clicking_it_opens_the_popup_to_answer(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    tab: dict[str, int] = {}
    go = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(go.wait, 60)
        return await client.call_tool(
            "browser_dom", {"action": "click", "selector": "#buy", "tabId": tab["id"]}
        )

    with browser(pw, profile, env) as ext:
        # the page we send from: no popup is open
        ext.page.goto(f"chrome-extension://{ext.id}/ui/options.html")
        gateway(ext, True)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params_from_codex(codex_config()), body)
        running.start()
        ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab["id"], "shared": True})
        go.set()
        [request] = wait_pending(ext)
        notice = f"approval:{request['id']}"
        wait_for(lambda: notice in notifications(ext), "no notification for the waiting approval")

        # Headless Chromium draws no notification to click: the test fires the worker's own onClicked event
        # (chrome.Event.dispatch), which runs the listener sw.js registered, as Chrome does on a click.
        worker = ext.context.service_workers[0]
        worker.evaluate("(id) => chrome.notifications.onClicked.dispatch(id)", notice)
        # The popup opens over the active tab (chrome.action.openPopup); Playwright does not list action
        # popups, so the options page reaches it as Chrome's extension pages reach each other (getViews) and
        # the person clicks *Allow once* there.
        opened = wait_for(
            lambda: ext.page.evaluate(
                """(id) => {
                    const [popup] = chrome.extension.getViews({ type: "popup" });
                    const item = popup?.document.querySelector(`li.approval[data-approval="${id}"]`);
                    return item ? item.innerText : "";
                }""",
                request["id"],
            ),
            "the notification's click did not open the popup with the question",
        )
        assert (
            opened.startswith("/")
            and "“codex”" in opened
            and f"click the element matching “#buy” in tab {tab['id']}" in opened
        )
        ext.page.evaluate(
            """(id) => chrome.extension.getViews({ type: "popup" })[0].document
                .querySelector(`li.approval[data-approval="${id}"] button[data-decision="once"]`).click()""",
            request["id"],
        )
        clicked = running.outcome()
        assert clicked.is_error is False, text_of(clicked)
        assert page.locator("#count").inner_text() == "clicks: 1"
        wait_for(lambda: notice not in notifications(ext), "the notification stayed after the answer")
        gateway(ext, False)
