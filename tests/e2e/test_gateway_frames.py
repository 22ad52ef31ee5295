"""Where an agent's action really lands, end to end (contract §8.2): a click inside a cross-site frame is
asked for the frame's site, and tabs an agent's page opens are the agent's, under the grants of their sites.
Two site names (a.test, b.test: both 127.0.0.1 to Chromium) make B's frame truly cross-site, out of process.
The agent is a real `tabgate-host mcp` started from the config `tabgate-host connect codex` writes."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Page, Playwright, expect

from tests.core.fenced import unwrapped
from tests.e2e.test_gateway_attacks import agent_params, answer
from tests.support.agents import AgentThread, text_of, wait_listed
from tests.support.bounds import BROWSER_CALL_S
from tests.support.browser import Extension
from tests.support.gateway_browser import browser, desktop_env, gateway, gateway_profile, wait_pending
from tests.support.local_site import serve

pytestmark = pytest.mark.e2e

RESOLVE_TEST_SITES = ("--host-resolver-rules=MAP *.test 127.0.0.1",)

COUNTER = """<p id="count">clicks: 0</p><button id="buy">{label}</button>
<script>let clicks = 0; document.getElementById("buy").onclick = () => {{
  document.getElementById("count").textContent = "clicks: " + ++clicks; }};</script>"""
# Each page by host and path; `{b}` is B's origin.
PAGES = {
    ("a", "/framed"): '<!doctype html><title>A shop</title><button id="top">On A</button>'
    '<iframe title="B widget" src="{b}/widget" width="400" height="200"></iframe>',
    ("b", "/widget"): "<!doctype html><title>B widget</title>" + COUNTER.format(label="Buy in B"),
    ("c", "/widget"): "<!doctype html><title>C widget</title>" + COUNTER.format(label="Buy in C"),
    ("a", "/opener"): "<!doctype html><title>A opener</title>"
    "<button id=\"open\" onclick=\"window.open('/popup', '_blank', 'noopener')\">Open A</button>"
    '<button id="openb" onclick="window.open(\'{b}/widget\')">Open B</button>',
    ("a", "/popup"): "<!doctype html><title>A popup</title>" + COUNTER.format(label="Buy in popup"),
    # A's page sends the keyboard focus into B's frame at the third key typed into its field, and tells
    # every script in the page world that its field still has the focus.
    (
        "a",
        "/steal",
    ): '<!doctype html><title>A sign-up</title><p>Sign up</p><input id="field" aria-label="Name">'
    '<iframe title="B form" src="{b}/form" width="300" height="100"></iframe><script>'
    'const field = document.getElementById("field"); let n = 0;'
    'Object.defineProperty(Document.prototype, "activeElement", { get: () => field });'
    'field.addEventListener("keydown", () => { if (++n === 3) document.querySelector("iframe").focus(); });'
    "</script>",
    # A's page lays B's frame, all but invisible, over its own button; B's button fills the frame.
    ("a", "/cover"): "<!doctype html><title>A cover</title>"
    + COUNTER.format(label="Buy on A")
    + '<iframe title="B cover" src="{b}/cover" style="position: absolute; left: 0; top: 0; width: 400px;'
    ' height: 200px; border: 0; opacity: 0.01"></iframe>',
    ("b", "/cover"): "<!doctype html><title>B cover</title>"
    + COUNTER.format(label="Buy in B").replace("<button", '<button style="width: 100%; height: 200px"'),
    # A's page takes the focus into its own field 30 ms after it entered B's payment frame.
    (
        "a",
        "/checkout",
    ): '<!doctype html><title>A checkout</title><p>Checkout</p><input id="notes" aria-label="Notes">'
    '<iframe title="B pay" src="{b}/pay" width="300" height="100"></iframe><script>'
    'const pay = document.querySelector("iframe"); const notes = document.getElementById("notes");'
    "const watch = setInterval(() => { if (document.activeElement === pay) {"
    " clearInterval(watch); setTimeout(() => notes.focus(), 30); } }, 1);</script>",
    ("b", "/pay"): '<!doctype html><title>B pay</title><input id="card" aria-label="Card number">',
    # B's frame in A's page asks for a password, in a prompt of its own.
    ("a", "/asks"): "<!doctype html><title>A asks</title><p>Welcome</p>"
    '<iframe title="B asks" src="{b}/asks" width="300" height="100"></iframe>',
    (
        "b",
        "/asks",
    ): '<!doctype html><title>B asks</title><p id="answer">unanswered</p><script>setTimeout(() => {'
    ' document.getElementById("answer").textContent = String(prompt("Password, please")); }, 300);</script>',
    ("b", "/form"): '<!doctype html><title>B form</title><p id="keys">keys: 0</p><input id="bfield">'
    '<script>let keys = 0; addEventListener("focus", () => document.getElementById("bfield").focus());'
    'const count = () => { document.getElementById("keys").textContent = "keys: " + ++keys; };'
    'for (const kind of ["keydown", "keypress", "keyup"]) addEventListener(kind, count);'
    "</script>",
}


def page_for(host: str, path: str, port: int) -> bytes | None:
    page = PAGES.get((host.split(".")[0], path))
    return None if page is None else page.replace("{b}", f"http://b.test:{port}").encode()


class Sites(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        host, _, port = (self.headers.get("Host") or "").partition(":")
        body = page_for(host, self.path.split("?")[0], int(port or 80))
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body or b"not here")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve(Sites) as origin:
        yield int(origin.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def a(port: int) -> str:
    return f"http://a.test:{port}"


@pytest.fixture(scope="module")
def b(port: int) -> str:
    return f"http://b.test:{port}"


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], a: str, b: str
) -> Iterator[Extension]:
    env = desktop_env(host_env, tmp_path_factory.mktemp("desktop"))
    # The extension may read both sites; what an agent may do there is the person's answer.
    profile = gateway_profile(pw, tmp_path_factory.mktemp("profile-frames"), env, [a, b])
    with browser(pw, profile, env, RESOLVE_TEST_SITES) as ext:
        gateway(ext, True)
        yield ext
        gateway(ext, False)


def ref_of(outline: str, line_start: str) -> str:
    line = next(ln for ln in outline.splitlines() if ln.strip().startswith(line_start))
    found = re.search(r"\[ref=(e\d+)\]", line)
    assert found is not None, line
    return found[1]


def tab_showing(ext: Extension, url: str) -> Page:
    deadline = time.monotonic() + BROWSER_CALL_S
    while True:
        pages = [p for p in ext.context.pages if p.url.startswith(url)]
        if pages:
            return pages[0]
        assert time.monotonic() < deadline, f"no tab shows {url}"
        ext.page.wait_for_timeout(100)  # Playwright hears of new tabs while it waits, not while Python sleeps


def asked_or_done(
    ext: Extension, running: AgentThread, timeout: float = BROWSER_CALL_S
) -> list[dict[str, Any]]:
    """The questions waiting, once there is one; [] when the agent finished without any."""
    deadline = time.monotonic() + timeout
    while not (pending := ext.send({"type": "approvals"})["pending"]):
        if not running.is_alive():
            if running.error is not None:  # the agent failed: say why, not "nobody was asked"
                raise running.error
            return []
        assert time.monotonic() < deadline, "nobody was asked and the agent did not finish"
        time.sleep(0.05)
    return list(pending)


def test_a_click_in_a_cross_site_frame_is_asked_for_the_frames_site_and_a_deny_keeps_it_out(
    ext: Extension, a: str, b: str, port: int, tmp_path: Path
) -> None:
    c = f"http://c.test:{port}"

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": f"{a}/framed"})
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        await client.call_tool("browser_dom", {"action": "wait_for", "tabId": tab_id, "text": "Buy in B"})
        outline = await client.call_tool("browser_page", {"action": "snapshot", "tabId": tab_id})
        on_a = await client.call_tool(
            "browser_dom",
            {"action": "click", "tabId": tab_id, "ref": ref_of(text_of(outline), 'button "On A"')},
        )
        in_b = ref_of(text_of(outline), 'button "Buy in B"')
        click = await client.call_tool("browser_dom", {"action": "click", "tabId": tab_id, "ref": in_b})
        # Aimed at the <iframe> by selector, a click would land in B's page too: refused, never asked.
        aimed = await client.call_tool(
            "browser_dom", {"action": "click", "tabId": tab_id, "selector": "iframe"}
        )
        again = await client.call_tool("browser_dom", {"action": "click", "tabId": tab_id, "ref": in_b})
        return [opened, outline, on_a, click, aimed, again]

    running = AgentThread(agent_params(tmp_path), body)
    running.start()
    [first] = wait_pending(ext)
    assert first["site"] == a
    answer(ext, first, "session")  # covers acting on A's page, not inside B's frame
    asked = asked_or_done(ext, running)
    assert [q["site"] for q in asked] == [b], "the click inside B's frame ran under A's grant"
    assert b in asked[0]["summary"] and a in asked[0]["summary"]  # the frame's site, on A's page
    answer(ext, asked[0], "deny")
    # Asked again for B; before the person allows it once, A's page puts C in the frame.
    [again] = wait_pending(ext)
    assert again["site"] == b
    frame = tab_showing(ext, f"{a}/framed").frame_locator("iframe")
    assert frame.locator("#count").inner_text() == "clicks: 0"  # B's button never saw the denied click
    tab_showing(ext, f"{a}/framed").evaluate(f"document.querySelector('iframe').src = '{c}/widget'")
    frame.get_by_text("Buy in C").wait_for()
    answer(ext, again, "once")
    _opened, _outline, on_a, click, aimed, moved = running.outcome()
    assert moved.is_error is True and "changed since you approved" in text_of(moved), text_of(moved)
    assert on_a.is_error is False, text_of(on_a)
    assert click.is_error is True and "denied" in text_of(click)
    assert aimed.is_error is True and "is a frame" in text_of(aimed), text_of(aimed)
    assert frame.locator("#count").inner_text() == "clicks: 0"  # nor C's the one approved for B


def test_tabs_an_agents_page_opens_are_its_own_and_acting_there_is_asked_for_their_site(
    ext: Extension, a: str, b: str, tmp_path: Path
) -> None:
    async def listed(client: Client, *starts: str) -> list[dict[str, Any]]:
        """The agent's tabs once one shows each of `starts`: a tab its page opened is about:blank until its
        navigation commits, so the wait is for the URLs, bounded as a browser tool waits for a page."""
        with anyio.fail_after(BROWSER_CALL_S):
            while True:
                tabs = json.loads(
                    unwrapped(text_of(await client.call_tool("browser_tab", {"action": "query"})))
                )
                if all(any(t["url"].startswith(start) for t in tabs) for start in starts):
                    return list(tabs)
                await anyio.sleep(0.2)

    person_opened = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> dict[str, Any]:
        await wait_listed(client, lambda n: "browser_dom" in n)
        # In the background, as an agent's tabs are: the person looks at their own.
        opened = await client.call_tool(
            "browser_tab", {"action": "create", "url": f"{a}/opener", "active": False}
        )
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        await client.call_tool("browser_dom", {"action": "wait_for", "tabId": tab_id, "text": "Open A"})
        await client.call_tool("browser_dom", {"action": "click", "tabId": tab_id, "selector": "#open"})
        await client.call_tool("browser_dom", {"action": "click", "tabId": tab_id, "selector": "#openb"})
        tabs = await listed(client, f"{a}/opener", f"{a}/popup", f"{b}/widget")
        popup = next(t["id"] for t in tabs if t["url"].startswith(f"{a}/popup"))
        widget = next(t["id"] for t in tabs if t["url"].startswith(f"{b}/widget"))
        await client.call_tool("browser_dom", {"action": "wait_for", "tabId": popup, "text": "Buy in popup"})
        read = await client.call_tool("browser_page", {"action": "text", "tabId": popup})
        bought = await client.call_tool(
            "browser_dom", {"action": "click", "tabId": popup, "selector": "#buy"}
        )
        on_b = await client.call_tool("browser_dom", {"action": "click", "tabId": widget, "selector": "#buy"})
        await anyio.to_thread.run_sync(person_opened.wait, 3 * BROWSER_CALL_S)  # a question, a tab, a page
        later = await listed(client, f"{a}/opener", f"{a}/popup", f"{b}/widget")
        return {"tabs": tabs, "read": read, "bought": bought, "on_b": on_b, "later": later}

    running = AgentThread(agent_params(tmp_path), body)
    running.start()
    [first] = wait_pending(ext)
    assert first["site"] == a
    answer(ext, first, "session")
    asked = asked_or_done(ext, running)
    assert [q["site"] for q in asked] == [b], "acting in the tab on B was not asked for B"
    answer(ext, asked[0], "deny")
    # The person looks at the agent's popup tab and opens a tab of their own from there: theirs, not its.
    tab_showing(ext, f"{a}/popup").bring_to_front()
    mine = ext.context.new_page()
    mine.goto(f"{a}/popup?person")
    person_opened.set()
    done = running.outcome()
    assert not [t for t in done["later"] if "person" in t["url"]]
    assert done["read"].is_error is False and "Buy in popup" in text_of(done["read"])
    assert done["bought"].is_error is False, text_of(done["bought"])  # A's session grant covers it
    assert done["on_b"].is_error is True and "denied" in text_of(done["on_b"])
    assert tab_showing(ext, f"{a}/popup").locator("#count").inner_text() == "clicks: 1"
    assert tab_showing(ext, f"{b}/widget").locator("#count").inner_text() == "clicks: 0"
    groups = ext.page.evaluate("async () => (await chrome.tabs.query({})).map((t) => [t.url, t.groupId])")
    opener = next(group for url, group in groups if url.startswith(f"{a}/opener"))
    assert opener != -1  # in the agent's group, with the tabs its page opened
    opened = [(url, group) for url, group in groups if url.startswith((f"{a}/popup", f"{b}/widget"))]
    assert {group for url, group in opened if "person" not in url} == {opener}
    assert {group for url, group in opened if "person" in url} == {-1}


def in_own_tab(
    tmp_path: Path, url: str, shows: str, act: Callable[[Client, int], Awaitable[Any]]
) -> AgentThread:
    """An agent that opens `url` in a tab of its own, waits for the page to show `shows`, then acts there."""

    async def body(client: Client, _notices: list[Any]) -> Any:
        await wait_listed(client, lambda n: "browser_dom" in n)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": url})
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        await client.call_tool("browser_dom", {"action": "wait_for", "tabId": tab_id, "text": shows})
        return await act(client, tab_id)

    running = AgentThread(agent_params(tmp_path), body)
    running.start()
    return running


def allowed_on(ext: Extension, running: AgentThread, site: str) -> list[dict[str, Any]]:
    """The person allows the agent on `site` for the session (its first question); the questions after it."""
    [first] = wait_pending(ext)
    assert first["site"] == site
    answer(ext, first, "session")  # covers that site's page, not a frame of another site in it
    return asked_or_done(ext, running)


def test_keys_an_agent_types_on_a_never_reach_bs_frame_when_as_page_moves_the_focus_there(
    ext: Extension, a: str, tmp_path: Path
) -> None:
    """A's page moves the focus into B's frame in the middle of the typing and hides it from the page world:
    the typing stops there and says why, and a key pressed on no element is refused, with nothing asked."""

    async def act(client: Client, tab_id: int) -> list[types.CallToolResult]:
        arguments = {"action": "type", "tabId": tab_id, "selector": "#field", "text": "hello world"}
        typed = await client.call_tool("browser_dom", arguments)
        pressed = await client.call_tool("browser_dom", {"action": "press", "tabId": tab_id, "key": "Enter"})
        return [typed, pressed]

    running = in_own_tab(tmp_path, f"{a}/steal", "keys: 0", act)
    assert allowed_on(ext, running, a) == [], "the keys were asked for elsewhere"
    typed, pressed = running.outcome()
    page = tab_showing(ext, f"{a}/steal")
    frame = page.frame_locator("iframe")
    assert frame.locator("#keys").inner_text() == "keys: 0", "keys reached B's frame"
    assert frame.locator("#bfield").input_value() == ""
    assert page.locator("#field").input_value() == "he"  # the third key's character went nowhere
    assert typed.is_error is False and text_of(typed).startswith(
        "Typed 3 of 11 character(s) into #field; the rest "
        "was not typed: the page moved the keyboard focus away from the element"
    ), text_of(typed)
    assert pressed.is_error is True and "the keyboard focus is inside a frame" in text_of(pressed)


def test_a_click_an_agent_aims_at_as_button_never_lands_in_bs_frame_laid_over_it(
    ext: Extension, a: str, tmp_path: Path
) -> None:
    async def act(client: Client, tab_id: int) -> types.CallToolResult:
        return await client.call_tool("browser_dom", {"action": "click", "tabId": tab_id, "selector": "#buy"})

    running = in_own_tab(tmp_path, f"{a}/cover", "Buy in B", act)
    assert allowed_on(ext, running, a) == [], "the click was asked for elsewhere"
    clicked = running.outcome()
    page = tab_showing(ext, f"{a}/cover")
    assert page.frame_locator("iframe").locator("#count").inner_text() == "clicks: 0", (
        "B's button was clicked"
    )
    assert page.locator("#count").inner_text() == "clicks: 0"
    assert clicked.is_error is True, text_of(clicked)
    assert (
        text_of(clicked)
        == "#buy was not clicked: a frame of another page lies over it there and would get the click"
    )


def test_a_card_number_typed_into_bs_frame_never_reaches_as_field_when_a_takes_the_focus(
    ext: Extension, a: str, b: str, tmp_path: Path
) -> None:
    """B's frame is there so that A never reads what goes into it: A's page taking the focus mid-typing stops
    the keys and the answer says so (before, it said all 200 characters were typed when 6 had gone in: the
    keys sent to B's frame after the focus left it went nowhere), and none reach A's field."""
    number = "4111 1111 1111 1111 " * 10

    async def act(client: Client, tab_id: int) -> types.CallToolResult:
        outline = await client.call_tool("browser_page", {"action": "snapshot", "tabId": tab_id})
        card = ref_of(text_of(outline), 'textbox "Card number"')
        return await client.call_tool(
            "browser_dom", {"action": "type", "tabId": tab_id, "ref": card, "text": number}
        )

    running = in_own_tab(tmp_path, f"{a}/checkout", "Checkout", act)
    [in_b] = allowed_on(ext, running, a)
    assert in_b["site"] == b  # typing inside B's frame
    answer(ext, in_b, "once")
    typed = running.outcome()
    page = tab_showing(ext, f"{a}/checkout")
    assert page.locator("#notes").input_value() == "", "A's page got the card number"
    went_in = page.frame_locator("iframe").locator("#card").input_value()
    assert number.startswith(went_in) and len(went_in) < len(number)
    assert typed.is_error is False and text_of(typed).endswith(
        "; the rest was not typed: the page moved the keyboard focus away from the element."
    ), text_of(typed)


def test_an_agent_may_dismiss_but_not_answer_a_dialog_that_bs_frame_opened_on_as_page(
    ext: Extension, a: str, tmp_path: Path
) -> None:
    """Accepting B's prompt (its text goes to B's page) acts in B's frame, which nobody was asked about;
    dismissing it, which every action waits for, stays open to the agent."""

    async def act(client: Client, tab_id: int) -> list[types.CallToolResult]:
        await anyio.sleep(1.0)  # B's prompt opens 300 ms after its page loads
        arguments = {"action": "dialog", "tabId": tab_id, "accept": True, "promptText": "hunter2"}
        answered = await client.call_tool("browser_dom", arguments)
        dismissed = await client.call_tool(
            "browser_dom", {"action": "dialog", "tabId": tab_id, "accept": False}
        )
        return [answered, dismissed]

    def keep_open(_dialog: Any) -> None:
        """A listener, so that Playwright leaves the page's dialogs to Tabgate."""

    ext.context.on("dialog", keep_open)
    try:
        running = in_own_tab(tmp_path, f"{a}/asks", "Welcome", act)
        assert allowed_on(ext, running, a) == [], "the person was asked about B"
        answered, dismissed = running.outcome()
    finally:
        ext.context.remove_listener("dialog", keep_open)
    frame = tab_showing(ext, f"{a}/asks").frame_locator("iframe")
    expect(frame.locator("#answer")).to_have_text("null")  # dismissed: B never got the text
    assert answered.is_error is True and "opened by a frame of http://b.test" in text_of(answered), text_of(
        answered
    )
    assert dismissed.is_error is False, text_of(dismissed)
