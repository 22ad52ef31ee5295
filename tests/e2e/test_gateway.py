"""Agents use Tabgate's tools through the host, with the user's consent (contract §8), end to end: the `mcp`
SDK's client as the agent, started exactly as codex / Claude / Cursor start it from their config (with their
default environments: the SDK's env=None, codex's few extra variables), then `tabgate-host mcp` → the
user-only socket at its default place → the host Chrome started (with a Linux desktop's environment) →
service worker → Python → the page. No runtime-folder override on either side: the default place is
machine-wide, so each browser start first waits until no other host serves it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Page, Playwright

from native_host.gateway.catalogue import fixed_tools
from tests.core.fenced import unwrapped
from tests.support.agents import (
    AgentThread,
    codex_config,
    default_place_free,
    host_pid,
    json_config,
    params_from_codex,
    params_from_json,
    run_agent,
    text_of,
    wait_listed,
)
from tests.support.bounds import BROWSER_UP_S, HOST_CONNECT_S
from tests.support.browser import Extension
from tests.support.gateway_browser import (
    BUTTON_TITLE,
    agent_id,
    answer_in_popup,
    approve_all,
    browser,
    env,
    gateway,
    open_popup,
    open_site_tab,
    person_tab_id,
    profile,
    site,
    wait_pending,
)

pytestmark = pytest.mark.e2e

FIXED = [tool.name for tool in fixed_tools()]
__all__ = ["env", "profile", "site"]  # the shared module fixtures, imported for this module's tests

# -- the tests -----------------------------------------------------------------------------------------------


@pytest.fixture
def macos_like(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """What macOS gives Chrome: a per-user TMPDIR (/var/folders/…, short: Chromium puts its own socket
    there) and no XDG_RUNTIME_DIR."""
    folder = tempfile.mkdtemp(prefix="T", dir="/tmp")
    try:
        yield {key: value for key, value in env.items() if key != "XDG_RUNTIME_DIR"} | {"TMPDIR": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("desktop", ["linux", "macos-like"])
def test_the_readme_configs_start_an_agent_that_sees_tabgate(
    pw: Playwright, profile: Path, env: dict[str, str], desktop: str, macos_like: dict[str, str]
) -> None:
    async def names(client: Client, _notices: list[Any]) -> list[str]:
        return await wait_listed(client, lambda n: "browser_page" in n)

    host_env = env if desktop == "linux" else macos_like
    with browser(pw, profile, host_env) as ext:
        gateway(ext, True)
        for params in (params_from_codex(codex_config()), params_from_json(json_config())):
            listed = run_agent(params, names)
            assert {"browser_page", "browser_dom", "browser_tab", "update_plan"} <= set(listed)
            assert not [n for n in listed if n.startswith("mcp__")]
        gateway(ext, False)


def test_off_by_default_the_agent_sees_the_tools_and_is_told_to_turn_the_gateway_on(
    pw: Playwright, profile: Path, env: dict[str, str]
) -> None:
    """Contract §8.2: listed all the same (no client calls a tool it was not shown), and the call and the
    instructions say what to do."""
    params = params_from_codex(codex_config())

    async def body(client: Client, _notices: list[Any]) -> tuple[str, list[str], types.CallToolResult]:
        names = [tool.name for tool in (await client.list_tools()).tools]
        return client.instructions or "", names, await client.call_tool("browser_tab", {"action": "query"})

    with browser(pw, profile, env) as ext:
        assert ext.send({"type": "config/get"})["gateway"] is False
        instructions, names, result = run_agent(params, body)
    assert names == FIXED
    assert result.is_error is True
    assert "Turn on *Let agents use Tabgate* in Tabgate's popup" in text_of(result)
    assert "NOT reachable" in instructions and "Turn on *Let agents use Tabgate*" in instructions


def test_an_agent_that_listed_once_before_the_browser_came_calls_once_it_is_there(
    pw: Playwright, profile: Path, env: dict[str, str]
) -> None:
    """codex 0.169 lists once, never again after list_changed: started before Chrome, it must still work."""
    params = params_from_codex(codex_config())
    listed, serving = threading.Event(), threading.Event()

    async def body(client: Client, _notices: list[Any]) -> tuple[str, list[str], types.CallToolResult]:
        names = [tool.name for tool in (await client.list_tools()).tools]
        down = await client.call_tool("browser_tab", {"action": "query"})
        listed.set()
        await anyio.to_thread.run_sync(serving.wait, 120)
        up = await client.call_tool("browser_tab", {"action": "query"})  # no tools/list in between
        return text_of(down), names, up

    default_place_free()
    running = AgentThread(params, body)
    running.start()
    assert listed.wait(60)
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        serving.set()
        down, names, up = running.outcome()
        gateway(ext, False)
    assert names == FIXED
    assert "Open Chrome with Tabgate" in down
    assert up.is_error is False, text_of(up)
    assert json.loads(unwrapped(text_of(up))) == []  # it opened no tab and none was shared with it


def test_reading_is_at_once_acting_asks_in_the_popup_and_allow_for_session_sticks(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    shared = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(shared.wait, 60)
        read = await client.call_tool("browser_page", {"action": "text", "tabId": tab["id"]})
        click = {"action": "click", "selector": "#buy", "tabId": tab["id"]}
        first = await client.call_tool("browser_dom", click)
        second = await client.call_tool("browser_dom", click)
        return [read, first, second]

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        popup = open_popup(ext)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params, body)
        running.start()
        # An agent uses only its own tabs and the ones the person shares with it (contract §8.1).
        ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab["id"], "shared": True})
        shared.set()
        asked = answer_in_popup(popup, "session")
        read, first_click, second_click = running.outcome()
        assert read.is_error is False and "clicks: 0" in text_of(read)
        assert first_click.is_error is False, text_of(first_click)
        assert second_click.is_error is False, text_of(second_click)
        assert "codex" in asked and site.split("//")[1] in asked and "click" in asked
        assert page.locator("#count").inner_text() == "clicks: 2"
        assert ext.send({"type": "approvals"})["pending"] == []
        by_agent = [e for e in ext.send({"type": "history"}) if e.get("caller", "").endswith(" · “codex”")]
        assert sorted(e["name"] for e in by_agent) == ["browser_dom", "browser_dom", "browser_page"]
        assert {e["status"] for e in by_agent} == {"done"}
        popup.reload()
        caller = popup.locator(".h-caller").first.inner_text()
        assert caller.startswith("by /") and caller.endswith("“codex”")  # the program first, then the name
        gateway(ext, False)


def test_deny_and_an_unanswered_request_answer_is_error_with_the_reason(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    short_timeout = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        denied = await client.call_tool("browser_dom", {"action": "click", "selector": "#buy"})
        await anyio.to_thread.run_sync(short_timeout.wait, 60)
        unanswered = await client.call_tool("browser_dom", {"action": "click", "selector": "#buy"})
        return [denied, unanswered]

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        popup = open_popup(ext)
        page = open_site_tab(ext, site)
        running = AgentThread(params, body)
        running.start()
        answer_in_popup(popup, "deny")
        ext.send({"type": "config/set", "patch": {"approvalTimeoutSec": 1}})  # 120 s by default
        short_timeout.set()
        denied, unanswered = running.outcome()
        assert denied.is_error is True and "denied" in text_of(denied)
        assert unanswered.is_error is True and "did not answer" in text_of(unanswered)
        assert page.locator("#count").inner_text() == "clicks: 0"
        ext.send({"type": "config/set", "patch": {"approvalTimeoutSec": 120, "gateway": False}})


def test_two_agents_at_once_each_in_its_own_session(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    shared = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> list[bool]:
        await wait_listed(client, lambda n: "browser_page" in n)
        await anyio.to_thread.run_sync(shared.wait, 60)
        title = {"action": "title", "tabId": tab["id"]}
        results = [await client.call_tool("browser_page", title) for _ in range(5)]
        return [r.is_error is False and BUTTON_TITLE in text_of(r) for r in results]

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        tab["id"] = person_tab_id(ext, open_site_tab(ext, site).url)
        agents = [AgentThread(params, body, name) for name in ("codex", "cursor")]
        for running in agents:
            running.start()
        for name in ("codex", "cursor"):  # the person shares the tab with both
            ext.send({"type": "agents/share", "id": agent_id(ext, name), "tabId": tab["id"], "shared": True})
        shared.set()
        assert [running.outcome() for running in agents] == [[True] * 5, [True] * 5]
        seen = {a["name"]: a for a in ext.send({"type": "agents"})["agents"]}
        assert seen["codex"]["id"] != seen["cursor"]["id"]  # one program, two names: two agents
        gateway(ext, False)


async def call_until(client: Client, works: bool, timeout: float = HOST_CONNECT_S) -> types.CallToolResult:
    """Call `browser_tab query` until it works (or, `works=False`, until it fails): the agent's tools stay
    listed either way, so only a call tells where the agent stands."""
    with anyio.fail_after(timeout):
        while True:
            result = await client.call_tool("browser_tab", {"action": "query"})
            if result.is_error is not works:
                return result
            await anyio.sleep(0.05)


def test_a_running_agent_survives_the_browser_closing_and_opening_again(
    pw: Playwright, profile: Path, env: dict[str, str]
) -> None:
    params = params_from_codex(codex_config())
    listed, closed, reopened = threading.Event(), threading.Event(), threading.Event()
    saw_closed = threading.Event()

    seen: list[Any] = []  # what the agent saw at each step, kept for the failure message

    async def body(client: Client, notices: list[Any]) -> None:
        await call_until(client, works=True)
        tools = (await client.list_tools()).tools
        seen.append([tool.model_dump(by_alias=True, exclude_none=True) for tool in tools])
        listed.set()
        await anyio.to_thread.run_sync(closed.wait, BROWSER_UP_S)
        seen.append(text_of(await call_until(client, works=False)))
        seen.append([tool.name for tool in (await client.list_tools()).tools])
        saw_closed.set()
        await anyio.to_thread.run_sync(reopened.wait, BROWSER_UP_S)
        seen.append((await call_until(client, works=True, timeout=BROWSER_UP_S)).is_error)
        assert any(isinstance(n, types.ToolListChangedNotification) for n in notices)

    running = AgentThread(params, body)
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        running.start()
        # The browser closes only once the agent has worked with it (its first call's own limit, and as
        # long again for its list): a fixed pause lost that race on a busy machine.
        if not listed.wait(2 * HOST_CONNECT_S):
            running.outcome()  # raises what stopped the agent
            raise AssertionError("the agent's first call did not work while the browser was open")
    closed.set()
    # The next browser opens only once the agent has seen this one closed: its host says "starting", then
    # "gateway off" until the browser turns the gateway on, which a slow agent would otherwise read as the
    # closed browser's state.
    if not saw_closed.wait(BROWSER_UP_S):
        running.outcome()
        raise AssertionError(f"the agent did not see the browser closed; it saw {seen}")
    # The closed browser's host stops serving as it exits; `browser` waits for that before the next one.
    with browser(pw, profile, env) as ext:
        gateway(ext, True)  # kept in the profile: this waits until the host serves again
        reopened.set()
        try:
            running.outcome()
        except BaseException as exc:
            raise AssertionError(f"the agent saw {seen} before: {exc!r}") from exc
        finally:
            gateway(ext, False)
    up, down_text, down, up_again = seen
    # No MCP tools here: the browser lists exactly the fixed tools, as `tabgate-host mcp` does without it.
    assert up == [tool.model_dump(by_alias=True, exclude_none=True) for tool in fixed_tools()]
    assert down == FIXED
    assert "open chrome with tabgate" in down_text.lower()
    assert up_again is False


def test_a_killed_host_is_started_again_and_the_agent_reconnects_within_5_s(
    pw: Playwright, profile: Path, env: dict[str, str]
) -> None:
    params = params_from_codex(codex_config())
    killed = threading.Event()
    took: list[float] = []

    async def body(client: Client, notices: list[Any]) -> list[float]:
        await client.list_tools()  # list_changed goes to an agent that has listed
        await call_until(client, works=True)
        await anyio.to_thread.run_sync(killed.wait, 60)
        start = time.monotonic()
        await call_until(client, works=True)
        took.append(time.monotonic() - start)
        assert any(isinstance(n, types.ToolListChangedNotification) for n in notices)
        return took

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        running = AgentThread(params, body)
        running.start()
        time.sleep(2)
        first = host_pid(env["TABGATE_LOG_DIR"])
        os.kill(first, signal.SIGKILL)
        killed.set()
        (seconds,) = running.outcome()
        assert host_pid(env["TABGATE_LOG_DIR"]) != first
        assert ext.send({"type": "status"})["host"] == "connected"  # nobody pressed Reconnect
        gateway(ext, False)
    assert seconds <= 5, f"the agent's call worked again {seconds:.1f} s after the host was killed"


# -- each agent has its own tabs, and an approval binds its tab and site (contract §8.1) ---------------------


def test_two_agents_each_see_only_their_own_tabs_in_their_own_groups(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())

    async def body(client: Client, _notices: list[Any]) -> tuple[types.CallToolResult, types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_tab" in n)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": f"{site}/mine"})
        return opened, await client.call_tool("browser_tab", {"action": "query"})

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        person = open_site_tab(ext, site)
        mine = person_tab_id(ext, person.url)
        agents = [AgentThread(params, body, name) for name in ("codex", "cursor")]
        for running in agents:
            running.start()
        asked = approve_all(ext, 2)
        assert {request["agent"] for request in asked} == {"codex", "cursor"}
        assert {request["site"] for request in asked} == {site}
        seen: list[set[int]] = []
        for running in agents:
            opened, listed = running.outcome()
            assert opened.is_error is False, text_of(opened)
            assert listed.is_error is False, text_of(listed)
            seen.append({int(tab["id"]) for tab in json.loads(unwrapped(text_of(listed)))})
        assert len(seen[0]) == len(seen[1]) == 1 and not seen[0] & seen[1]
        assert mine not in seen[0] | seen[1]  # the person's tab is nobody's
        groups = ext.page.evaluate(
            "async () => (await chrome.tabGroups.query({})).map((g) => g.title).sort()"
        )
        assert groups == ["codex", "cursor"]
        listed_agents = {a["name"]: a for a in ext.send({"type": "agents"})["agents"]}
        assert {a["tabs"][0]["tabId"] for a in listed_agents.values()} == seen[0] | seen[1]
        assert all(a["executable"].startswith("/") for a in listed_agents.values())
        options = ext.context.new_page()
        options.goto(f"chrome-extension://{ext.id}/ui/options.html")
        rows = options.locator("li.agent")
        rows.first.wait_for()
        assert sorted(row.locator("strong").inner_text() for row in rows.all()) == sorted(
            f"{a['program']} “{a['name']}”"
            for a in listed_agents.values()  # program first, then name
        )
        gateway(ext, False)


def test_a_tab_the_person_shares_is_usable_until_they_stop_sharing_it(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    ready, shared, read_shared, unshared = (threading.Event() for _ in range(4))

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_page" in n)
        title = {"action": "title", "tabId": tab["id"]}
        results = [await client.call_tool("browser_page", title)]
        ready.set()
        await anyio.to_thread.run_sync(shared.wait, 60)
        results.append(await client.call_tool("browser_page", title))
        read_shared.set()
        await anyio.to_thread.run_sync(unshared.wait, 60)
        results.append(await client.call_tool("browser_page", title))
        return results

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params, body)
        running.start()
        assert ready.wait(60)
        share = {"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab["id"]}
        assert ext.send({**share, "shared": True}) == {"ok": True}
        shared.set()
        assert read_shared.wait(60)
        assert ext.send({**share, "shared": False}) == {"ok": True}
        unshared.set()
        before, during, after = running.outcome()
        assert before.is_error is True and "Share this tab with codex" in text_of(before)
        assert during.is_error is False and BUTTON_TITLE in text_of(during)
        assert after.is_error is True and "not one of your tabs" in text_of(after)
        gateway(ext, False)


@dataclass(frozen=True)
class CloseAsked:
    """An agent asked to close a tab the person shared with it; the person has not answered yet."""

    ext: Extension
    page: Page  # the person's tab the agent would close
    tab_id: int
    running: AgentThread  # its outcome is the agent's `browser_tab close` result
    request: dict[str, Any]  # the pending approval


@contextmanager
def asked_to_close_a_shared_tab(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> Iterator[CloseAsked]:
    params = params_from_codex(codex_config())
    tab: dict[str, int] = {}
    go = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_tab" in n)
        await anyio.to_thread.run_sync(go.wait, 60)
        return await client.call_tool("browser_tab", {"action": "close", "tabId": tab["id"]})

    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        page = open_site_tab(ext, site)
        tab["id"] = person_tab_id(ext, page.url)
        running = AgentThread(params, body)
        running.start()
        ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab["id"], "shared": True})
        go.set()
        [request] = wait_pending(ext)
        yield CloseAsked(ext, page, tab["id"], running, request)
        gateway(ext, False)


def test_a_tab_moved_to_another_site_before_the_approval_is_refused_after_allow_once(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    with asked_to_close_a_shared_tab(pw, profile, env, site) as asked:
        ext, page, request = asked.ext, asked.page, asked.request
        assert (request["agent"], request["site"], request["tab"]["tabId"]) == ("codex", site, asked.tab_id)
        assert request["executable"].startswith("/")
        # Meanwhile the tab shows another site (the same server under another name is another site).
        page.goto(site.replace("127.0.0.1", "localhost") + "/elsewhere")
        assert ext.send({"type": "approval/answer", "id": request["id"], "decision": "once"}) == {"ok": True}
        result = asked.running.outcome()
        assert result.is_error is True
        assert "the page changed since you approved; ask again" in text_of(result)
        assert not page.is_closed()


def test_an_approval_pending_when_the_service_worker_stops_is_withdrawn_and_answering_it_runs_nothing(
    pw: Playwright, profile: Path, env: dict[str, str], site: str
) -> None:
    with asked_to_close_a_shared_tab(pw, profile, env, site) as asked:
        ext, page, request = asked.ext, asked.page, asked.request
        ext.stop_service_worker()  # its native port dies, and the host and the agent's session with it
        deadline = time.monotonic() + 30
        while (approvals := ext.send({"type": "approvals"}))["pending"]:
            assert time.monotonic() < deadline, "the approval was never withdrawn"
            time.sleep(0.1)
        [withdrawn] = approvals["withdrawn"]
        assert withdrawn["id"] == request["id"] and withdrawn["withdrawn"]
        answer = ext.send({"type": "approval/answer", "id": request["id"], "decision": "once"})
        assert "withdrawn" in answer["error"]["message"] and "nothing was run" in answer["error"]["message"]
        assert asked.running.outcome().is_error is True
        popup = open_popup(ext)
        shown = popup.locator("li.approval-withdrawn")
        shown.wait_for()
        assert "withdrawn" in shown.inner_text() and "“codex”" in shown.inner_text()
        assert popup.locator("li.approval").count() == 0
        time.sleep(0.5)
        assert not page.is_closed()  # nothing ran, for nobody
