"""The agents' activity log and the notification of a waiting approval (contract §9), end to end: an agent
started by the `mcp` SDK as codex starts it, through `tabgate-host mcp` and the host, to the service worker,
Python and the page; the person answers through the runtime API and looks at the options page."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Playwright

from tests.support.agents import AgentThread, codex_config, params_from_codex, text_of, wait_listed
from tests.support.axe import shoot_both_schemes
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


def no_popup_open(ext: Extension) -> None:
    """The page the tests send from shows the options page: no popup page is open."""
    ext.page.goto(f"chrome-extension://{ext.id}/ui/options.html")


def test_a_mixed_run_leaves_one_entry_per_call_with_its_outcome_kept_filtered_and_exported(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    shared = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(shared.wait, 60)
        click = {"action": "click", "selector": "#buy", "tabId": tab["id"]}
        return [
            await client.call_tool("browser_page", {"action": "title", "tabId": tab["id"]}),
            await client.call_tool("browser_page", {"action": "title", "tabId": 987654}),
            await client.call_tool("browser_dom", click),  # denied
            await client.call_tool("browser_dom", click),  # stopped while asked: withdrawn
        ]

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params, body)
        running.start()
        codex = agent_id(ext, "codex")
        ext.send({"type": "agents/share", "id": codex, "tabId": tab["id"], "shared": True})
        shared.set()
        [denied] = wait_pending(ext)
        assert ext.send({"type": "approval/answer", "id": denied["id"], "decision": "deny"}) == {"ok": True}
        wait_for(lambda: [p for p in wait_pending(ext) if p["id"] != denied["id"]], "no second question")
        assert ext.send({"type": "agents/stop", "id": codex}) == {"stopped": 1}
        done, failed, refused, withdrawn = running.outcome()
        assert done.is_error is False and BUTTON_TITLE in text_of(done)
        assert failed.is_error is True and refused.is_error is True and withdrawn.is_error is True

        entries = ext.send({"type": "agents/activity", "id": codex})["entries"]
        assert [(e["tool"], e.get("action"), e["outcome"]) for e in entries] == [
            ("browser_dom", "click", "withdrawn"),
            ("browser_dom", "click", "denied"),
            ("browser_page", "title", "failed"),
            ("browser_page", "title", "done"),
        ]
        assert all(
            e["agent"].startswith("/") and e["agent"].endswith(" · “codex”") and e["agentId"] == codex
            for e in entries
        )
        assert (entries[1]["site"], entries[1]["tabId"]) == (site, tab["id"])
        assert entries[3]["tabId"] == tab["id"] and all(e["ms"] >= 0 for e in entries)
        assert [e["at"] for e in entries] == sorted((e["at"] for e in entries), reverse=True)
        assert ext.send({"type": "agents/activity", "id": "nobody"})["entries"] == []
        assert ext.send({"type": "agents/activity", "limit": 1})["entries"] == entries[:1]

        # Kept where the history is kept: the worker's session storage, as Python last sent it.
        stored = wait_for(
            lambda: (
                (
                    got := ext.page.evaluate(
                        "async () => (await chrome.storage.session.get('agents-activity'))['agents-activity']"
                    )
                )
                == entries
                and got
            ),
            "the activity log was not stored",
        )
        assert stored == entries

        options = ext.context.new_page()
        options.goto(f"chrome-extension://{ext.id}/ui/options.html")
        rows = options.locator("#activity li.activity-entry")
        wait_for(lambda: rows.count() == 4, "the options page does not list the four calls")
        assert [rows.nth(i).get_attribute("data-outcome") for i in range(4)] == [
            "withdrawn",
            "denied",
            "failed",
            "done",
        ]
        assert "“codex”" in rows.first.inner_text() and "browser_dom click" in rows.first.inner_text()
        options.locator("#activity").scroll_into_view_if_needed()
        shoot_both_schemes(options, "options-agent-activity")  # kept as artifacts, no axe violation
        options.select_option("#activity-agent", codex)
        with options.expect_download() as download:
            options.click("#activity-export")
        exported = json.loads(Path(download.value.path()).read_text())
        assert exported["entries"] == entries

        # One more call, and Python's document goes at once (with the log it held), likely before the worker
        # wrote that call's entry (it writes at most once a second): the next document gets the log from the
        # worker, that entry included.
        async def one_more(client: Client, _notices: list[Any]) -> types.CallToolResult:
            await wait_listed(client, lambda n: "browser_page" in n)
            return await client.call_tool("browser_page", {"action": "title", "tabId": tab["id"]})

        last = AgentThread(params, one_more)
        last.start()
        assert last.outcome().is_error is False
        newest = wait_for(
            lambda: (
                (got := ext.send({"type": "agents/activity", "limit": 1})["entries"]) != entries[:1] and got
            ),
            "the last call's entry",
        )
        booted = ext.send({"type": "status"})["bootedAt"]
        ext.page.evaluate("chrome.offscreen.closeDocument()")
        wait_for(lambda: ext.wait_python_ready()["bootedAt"] != booted, "Python did not start again")
        wait_for(
            lambda: ext.send({"type": "agents/activity"})["entries"] == [*newest, *entries],
            "the activity log did not come back whole after Python restarted",
        )
        gateway(ext, False)


def test_a_waiting_approval_with_no_popup_open_raises_a_notification_cleared_once_answered(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    go, again = threading.Event(), threading.Event()

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(go.wait, 60)
        click = {"action": "click", "selector": "#buy", "tabId": tab["id"]}
        first = await client.call_tool("browser_dom", click)
        await anyio.to_thread.run_sync(again.wait, 60)
        return [first, await client.call_tool("browser_dom", click)]

    with browser(pw, profile, env) as ext:
        no_popup_open(ext)
        gateway(ext, True)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params, body)
        running.start()
        ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab["id"], "shared": True})
        go.set()
        [request] = wait_pending(ext)
        notice = f"approval:{request['id']}"
        wait_for(lambda: notice in notifications(ext), "no notification for the waiting approval")
        assert ext.send({"type": "approval/answer", "id": request["id"], "decision": "once"}) == {"ok": True}
        wait_for(lambda: notice not in notifications(ext), "the notification stayed after the answer")

        # With the popup open, the popup shows the question: no notification.
        popup = open_popup(ext)
        popup.locator("#approvals, body").first.wait_for()
        again.set()
        [second] = wait_pending(ext)
        time.sleep(1)
        assert f"approval:{second['id']}" not in notifications(ext)
        assert ext.send({"type": "approval/answer", "id": second["id"], "decision": "once"}) == {"ok": True}
        first, last = running.outcome()
        assert first.is_error is False and last.is_error is False, text_of(first) + text_of(last)
        assert page.locator("#count").inner_text() == "clicks: 2"
        gateway(ext, False)
