"""The web cannot carry an agent past the person's consent (contract §8.2), end to end: under a grant for site
A, a server redirect, a form's POST, a script's or a meta refresh's navigation, and going back (from the
back/forward cache too), each to site B, never reach B, in the agent's own tabs, in a tab it creates and in
one the person shares with it. The tab stays on A, the agent is told where the page tried to go (fenced),
and the person is asked for B. A real agent (the `mcp` SDK started from the config `tabgate-host connect`
writes) drives a real Chromium with its back/forward cache on, as a person's is; B is its own server, which
records every request it gets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Playwright

from core.agents.agent_tabs import OPENS_AFTER_CALL_S
from tests.core.fenced import unwrapped
from tests.e2e.test_gateway_attacks import agent_params
from tests.support.agents import AgentThread, text_of, wait_listed
from tests.support.bounds import BROWSER_CALL_S
from tests.support.browser import Extension
from tests.support.gateway_browser import (
    agent_id,
    browser,
    desktop_env,
    gateway,
    gateway_profile,
    person_tab_id,
)
from tests.support.local_site import pages_and_a_redirect, serve

pytestmark = pytest.mark.e2e

CARD = "4111-1111-1111-1111"
MARK = "--- page content "  # a fenced block's first line begins so


class SiteB(BaseHTTPRequestHandler):
    """Site B: answers every request with a page and records it (method, path, body), but for the icon
    Chrome fetches for a page shown (that is the browser's, not a page's request). Its pages are not kept by
    the back/forward cache (`no-store`), but for those under /kept."""

    seen: ClassVar[list[tuple[str, str, bytes]]] = []

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if self.path != "/favicon.ico":
            SiteB.seen.append((self.command, self.path, self.rfile.read(length) if length else b""))
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if not self.path.startswith("/kept"):
            self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>Site B</title><p>B's own page</p>")

    do_GET = do_POST = _record

    def log_message(self, format: str, *args: Any) -> None:
        pass


def site_a_pages(b: str) -> dict[str, bytes]:
    """Site A's pages, each of which leads to B in its own way."""
    return {
        "/plain": b"<!doctype html><title>A</title><p>A's page</p>",
        "/link": b'<!doctype html><title>A link</title><a id="go" href="/redirect">Go on</a>',
        "/form": (
            f'<!doctype html><title>A form</title><form method="post" action="{b}/submit">'
            f'<input name="card" value="{CARD}"><button id="send">Pay</button></form>'
        ).encode(),
        "/script": (
            f'<!doctype html><title>A script</title><button id="go" '
            f"onclick=\"location.href='{b}/script'\">Go</button>"
        ).encode(),
        "/meta": (
            f'<!doctype html><title>A meta</title><meta http-equiv="refresh" content="0;url={b}/meta">'
        ).encode(),
    }


@pytest.fixture(scope="module")
def site_b() -> Iterator[str]:
    with serve(SiteB) as origin:
        yield origin.replace("127.0.0.1", "localhost")  # another host: another site for Chrome and Tabgate


@pytest.fixture(scope="module")
def site_a(site_b: str) -> Iterator[str]:
    with serve(pages_and_a_redirect(site_a_pages(site_b), f"{site_b}/landing")) as origin:
        yield origin


@pytest.fixture(scope="module")
def ext(
    pw: Playwright,
    tmp_path_factory: pytest.TempPathFactory,
    host_env: dict[str, str],
    site_a: str,
    site_b: str,
) -> Iterator[Extension]:
    env = desktop_env(host_env, tmp_path_factory.mktemp("desktop"))
    # The person let Tabgate read both sites: only the agent's consent stands between it and B.
    profile = gateway_profile(pw, tmp_path_factory.mktemp("profile-nav"), env, [site_a, site_b])
    with browser(pw, profile, env, bfcache=True) as ext:
        gateway(ext, True)
        yield ext
        gateway(ext, False)


@pytest.fixture
def codex(tmp_path: Path) -> StdioServerParameters:
    return agent_params(tmp_path)


@pytest.fixture(autouse=True)
def fresh_b() -> None:
    SiteB.seen.clear()


type Decide = Callable[[dict[str, Any]], str | None]


def person(ext: Extension, decide: Decide, timeout: float = BROWSER_CALL_S) -> dict[str, Any]:
    """The person answers questions as `decide` says until it says None: that question is returned, open."""
    answered: set[str] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for question in ext.send({"type": "approvals"})["pending"]:
            if question["id"] in answered:
                continue
            decision = decide(question)
            if decision is None:
                return dict(question)
            answered.add(question["id"])
            assert ext.send({"type": "approval/answer", "id": question["id"], "decision": decision}) == {
                "ok": True
            }
        time.sleep(0.05)
    pending = ext.send({"type": "approvals"})["pending"]
    raise AssertionError(f"the question waited for never came; B saw {SiteB.seen}; waiting: {pending}")


def a_granted_until_b(a: str, b: str) -> Decide:
    """Everything on A is allowed for the session; a question for B is the one waited for."""

    def decide(question: dict[str, Any]) -> str | None:
        if question.get("site") == b:
            return None
        assert question.get("site") == a, question
        return "session" if question.get("sessionAllowed", True) else "once"

    return decide


def named_fenced(text: str, url: str) -> bool:
    """`url` is in the answer, inside a fenced block (as the page's text)."""
    return url in text and 0 <= text.find(MARK) < text.find(url)


def drive(
    ext: Extension, codex: StdioServerParameters, steps: Callable[[Client], Any], decide: Decide
) -> tuple[dict[str, Any], Any, types.CallToolResult]:
    """The agent runs `steps` while the person answers as `decide` says; once the question waited for is
    there (left open), the agent reads where its tab is. Answers the question, the steps' results and that."""
    go = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> Any:
        await wait_listed(client, lambda n: "browser_navigation" in n)
        first = await steps(client)
        await anyio.to_thread.run_sync(go.wait, 60)
        return first, await client.call_tool("browser_navigation", {"action": "current_url"})

    running = AgentThread(codex, body)
    running.start()
    question = person(ext, decide)
    go.set()
    first, shown = running.outcome()
    return question, first, shown


def drive_shared(
    ext: Extension,
    codex: StdioServerParameters,
    sites: tuple[str, str],
    path: str,
    steps: Callable[[Client, int], Any],
    then: Callable[[Page], None] = lambda _: None,
) -> tuple[dict[str, Any], Any, types.CallToolResult, int]:
    """As `drive`, in a tab the person opened on A's `path` and shares with the agent once it is connected
    (the person decides as `a_granted_until_b` says); `then` is what the person does in that tab after the
    agent's last call, while the agent is still connected. Also answers that tab's id."""
    url = f"{sites[0]}{path}"
    page = ext.context.new_page()
    page.goto(url)
    tab_id = person_tab_id(ext, url)
    shared, go, answered, leave = (threading.Event() for _ in range(4))

    async def body(client: Client, _notices: list[Any]) -> Any:
        await wait_listed(client, lambda n: "browser_navigation" in n)
        await anyio.to_thread.run_sync(shared.wait, 60)
        first = await steps(client, tab_id)
        await anyio.to_thread.run_sync(go.wait, 60)
        shown = await client.call_tool("browser_navigation", {"action": "current_url", "tabId": tab_id})
        answered.set()
        await anyio.to_thread.run_sync(leave.wait, 60)
        return first, shown

    running = AgentThread(codex, body)
    running.start()
    ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab_id, "shared": True})
    shared.set()
    question = person(ext, a_granted_until_b(*sites))
    go.set()
    try:
        assert answered.wait(60), "the agent's last call never answered"
        then(page)
    finally:
        leave.set()
    first, shown = running.outcome()
    page.close()
    return question, first, shown, tab_id


def the_person_goes(ext: Extension, url: str) -> Callable[[Page], None]:
    """The person goes to `url` in their tab once Chrome's activation window after the agent's last call
    there is over (`OPENS_AFTER_CALL_S`): tried again, within a bound, while Tabgate still held the tab late
    (each stop the person is asked about is then denied)."""

    def go(page: Page) -> None:
        time.sleep(OPENS_AFTER_CALL_S)  # the window the product holds a shared tab for, after the call
        deadline = time.monotonic() + BROWSER_CALL_S
        while True:
            try:
                page.goto(url)
                break
            except PlaywrightError:
                assert time.monotonic() < deadline, "the person could not go on in their own tab"
                for question in ext.send({"type": "approvals"})["pending"]:
                    end(ext, question)
                page.wait_for_timeout(200)

    return go


async def go_to(client: Client, url: str) -> types.CallToolResult:
    return await client.call_tool("browser_navigation", {"action": "navigate", "url": url})


async def click(client: Client, selector: str) -> types.CallToolResult:
    return await client.call_tool("browser_dom", {"action": "click", "selector": selector})


def end(ext: Extension, question: dict[str, Any]) -> None:
    ext.send({"type": "approval/answer", "id": question["id"], "decision": "deny"})


# -- the tests -----------------------------------------------------------------------------------------------


def test_a_redirect_to_b_under_a_grant_for_a_never_reaches_b_and_the_person_is_asked_for_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    async def steps(client: Client) -> types.CallToolResult:
        return await go_to(client, f"{site_a}/redirect")

    question, moved, shown = drive(ext, codex, steps, a_granted_until_b(site_a, site_b))
    assert SiteB.seen == []  # not a single request
    assert question["site"] == site_b and question["action"] == "navigate"
    assert named_fenced(text_of(moved), f"{site_b}/landing"), text_of(moved)
    assert f"{site_b}/landing" not in text_of(moved).split(MARK)[0]  # never in Tabgate's own words
    assert not json.loads(unwrapped(text_of(shown)))["url"].startswith(site_b)
    end(ext, question)


def test_a_form_on_a_posting_to_b_never_sends_b_its_fields(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    async def steps(client: Client) -> list[types.CallToolResult]:
        return [await go_to(client, f"{site_a}/form"), await click(client, "#send")]

    question, (opened, clicked), shown = drive(ext, codex, steps, a_granted_until_b(site_a, site_b))
    assert opened.is_error is False and clicked.is_error is False, text_of(clicked)
    assert SiteB.seen == [] and CARD.encode() not in b"".join(body for *_, body in SiteB.seen)
    assert question["site"] == site_b
    told = text_of(clicked) + text_of(shown)  # with the click's answer, or the next one
    assert named_fenced(told, f"{site_b}/submit"), told
    assert json.loads(unwrapped(text_of(shown).split("\n\n")[0]))["url"].startswith(f"{site_a}/form")
    end(ext, question)


@pytest.mark.parametrize("how", ["script", "meta"])
def test_a_script_or_a_meta_refresh_on_a_never_takes_the_tab_to_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str, how: str
) -> None:
    async def steps(client: Client) -> list[types.CallToolResult]:
        opened = await go_to(client, f"{site_a}/{how}")
        return [opened] if how == "meta" else [opened, await click(client, "#go")]

    question, _, shown = drive(ext, codex, steps, a_granted_until_b(site_a, site_b))
    assert SiteB.seen == []
    assert question["site"] == site_b and f"{site_b}/{how}" in question["summary"]
    assert json.loads(unwrapped(text_of(shown).split("\n\n")[0]))["url"].startswith(f"{site_a}/{how}")
    end(ext, question)


def back_into_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str, path: str
) -> tuple[dict[str, Any], list[types.CallToolResult], types.CallToolResult, list[str]]:
    """The agent goes to B's `path` (allowed once), then to A, then back: the question, the three answers,
    what the agent was shown next, and the id of the once-question."""

    async def steps(client: Client) -> list[types.CallToolResult]:
        first, there = await go_to(client, f"{site_b}{path}"), await go_to(client, f"{site_a}/plain")
        return [first, there, await client.call_tool("browser_navigation", {"action": "back"})]

    once_for_b: list[str] = []

    def decide(question: dict[str, Any]) -> str | None:
        if question.get("site") == site_b and not once_for_b:  # the agent's own navigate to B: once
            once_for_b.append(question["id"])
            return "once"
        return a_granted_until_b(site_a, site_b)(question)

    question, answers, shown = drive(ext, codex, steps, decide)
    return question, answers, shown, once_for_b


def test_going_back_into_b_is_held_until_the_person_allows_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    question, (first, there, _back), shown, once_for_b = back_into_b(ext, codex, site_a, site_b, "/first")
    assert first.is_error is False and there.is_error is False, text_of(there)
    assert [path for _, path, _ in SiteB.seen] == ["/first"]  # going back asked nothing of B
    assert question["site"] == site_b and question["id"] != once_for_b[0]
    assert json.loads(unwrapped(text_of(shown).split("\n\n")[0]))["url"] == f"{site_a}/plain"
    end(ext, question)


def test_a_tab_created_on_a_that_redirects_to_b_never_reaches_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    async def steps(client: Client) -> types.CallToolResult:
        return await client.call_tool("browser_tab", {"action": "create", "url": f"{site_a}/redirect"})

    question, created, shown = drive(ext, codex, steps, a_granted_until_b(site_a, site_b))
    assert SiteB.seen == []  # the new tab was held before its first load
    assert question["site"] == site_b and question["action"] == "navigate"
    assert named_fenced(text_of(created), f"{site_b}/landing"), text_of(created)
    assert not json.loads(unwrapped(text_of(shown)))["url"].startswith(site_b)
    end(ext, question)


def test_a_tab_created_on_a_answers_as_the_tab_on_a(
    ext: Extension, codex: StdioServerParameters, site_a: str
) -> None:
    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_tab" in n)
        return await client.call_tool("browser_tab", {"action": "create", "url": f"{site_a}/plain"})

    running = AgentThread(codex, body)
    running.start()
    question = person(ext, lambda _: None)
    assert question["site"] == site_a
    assert ext.send({"type": "approval/answer", "id": question["id"], "decision": "once"}) == {"ok": True}
    created = json.loads(unwrapped(text_of(running.outcome())))
    assert created["url"] == f"{site_a}/plain"  # where it went, not the blank page it opened on


def test_a_redirect_to_b_after_the_agents_click_in_a_shared_tab_never_reaches_b(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    async def steps(client: Client, tab_id: int) -> types.CallToolResult:
        return await client.call_tool("browser_dom", {"action": "click", "selector": "#go", "tabId": tab_id})

    mine = f"{site_b}/mine"
    sites = (site_a, site_b)
    question, clicked, shown, tab_id = drive_shared(
        ext, codex, sites, "/link", steps, then=the_person_goes(ext, mine)
    )
    # The person's own move there later went on (the tab is theirs again); nothing else reached B.
    assert [path for _, path, _ in SiteB.seen] == ["/mine"]
    assert question["site"] == site_b and question["tab"]["tabId"] == tab_id, question
    told = text_of(clicked) + text_of(shown)
    assert named_fenced(told, f"{site_b}/landing"), told
    assert json.loads(unwrapped(text_of(shown).split("\n\n")[0]))["url"] == f"{site_a}/link"
    end(ext, question)


def test_a_form_in_a_shared_tab_posting_to_b_never_sends_b_its_fields(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    async def steps(client: Client, tab_id: int) -> types.CallToolResult:
        return await client.call_tool(
            "browser_dom", {"action": "click", "selector": "#send", "tabId": tab_id}
        )

    question, clicked, shown, _ = drive_shared(ext, codex, (site_a, site_b), "/form", steps)
    assert clicked.is_error is False, text_of(clicked)
    assert SiteB.seen == []
    assert question["site"] == site_b
    told = text_of(clicked) + text_of(shown)
    assert named_fenced(told, f"{site_b}/submit"), told
    end(ext, question)


def test_going_back_into_b_kept_by_the_back_forward_cache_is_stopped(
    ext: Extension, codex: StdioServerParameters, site_a: str, site_b: str
) -> None:
    question, (first, there, back), shown, once_for_b = back_into_b(ext, codex, site_a, site_b, "/kept")
    assert first.is_error is False and there.is_error is False, text_of(there)
    assert [path for _, path, _ in SiteB.seen] == ["/kept"]  # restored from memory: B was never asked again
    assert question["site"] == site_b and question["id"] != once_for_b[0]
    told = text_of(back) + text_of(shown)
    assert named_fenced(told, f"{site_b}/kept"), told
    assert "Site B" not in told  # nothing of B's page: not even its title
    assert json.loads(unwrapped(text_of(shown).split("\n\n")[0]))["url"] == f"{site_a}/plain"
    end(ext, question)
