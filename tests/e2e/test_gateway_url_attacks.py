"""A URL that two parsers read as two sites never carries an agent's grant to the other site (contract §8.2,
*One reading of every URL*), end to end: an agent the person allowed on site A for the session asks to open
URLs that Python's `urlsplit` reads as A and Chrome as B. Each is refused, or asked for B; the tab never
reaches B under A's grant."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from playwright.sync_api import Playwright

from tests.core.fenced import unwrapped
from tests.support.agents import AgentThread, codex_config, params_from_codex, text_of, wait_listed
from tests.support.browser import Extension
from tests.support.gateway_browser import browser, env, gateway, gateway_profile, site, wait_pending

pytestmark = pytest.mark.e2e

__all__ = ["env", "site"]  # the shared module fixtures, imported for this module's tests


def other(site: str) -> str:
    """The same server under another name: site B."""
    return site.replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, env: dict[str, str], site: str
) -> Iterator[Extension]:
    # The person let Tabgate read both sites; the agent is allowed only on A.
    profile = gateway_profile(pw, tmp_path_factory.mktemp("profile-url-attacks"), env, [site, other(site)])
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        yield ext
        gateway(ext, False)


def read_two_ways(site: str, form: str) -> str:
    """A URL that `urlsplit` reads as site A (127.0.0.1:port) and Chrome as site B (localhost:port), or that
    shows A to a person while it goes to B."""
    a, b = site.removeprefix("http://"), other(site).removeprefix("http://")
    return {
        "backslash": f"http://{b}\\@{a}/",
        "two backslashes": f"http://{b}\\\\@{a}/x",
        "upper-case scheme, tab and backslash": f"HTTP://{b}\t\\@{a}/",
        "A as credentials before B": f"http://{a}@{b}/",  # B to both: asked for B, or refused
    }[form]


@pytest.mark.parametrize(
    ("form", "tool", "refusal"),
    [
        ("backslash", "browser_navigation", "backslash"),
        ("two backslashes", "browser_tab", "backslash"),
        ("upper-case scheme, tab and backslash", "browser_navigation", "control characters"),
        ("A as credentials before B", "browser_tab", "credentials"),
    ],
)
def test_a_grant_for_one_site_never_takes_the_tab_to_a_site_another_parser_reads(
    ext: Extension, site: str, form: str, tool: str, refusal: str
) -> None:
    url = read_two_ways(site, form)

    async def body(client: Client, _notices: list[Any]) -> tuple[types.CallToolResult, str]:
        await wait_listed(client, lambda n: "browser_tab" in n)
        opened = await client.call_tool("browser_tab", {"action": "create", "url": f"{site}/start"})
        tab_id = json.loads(unwrapped(text_of(opened)))["id"]
        move = {"action": "navigate", "url": url} if tool == "browser_navigation" else {"action": "update"}
        moved = await client.call_tool(tool, move | {"tabId": tab_id, "url": url})
        where = await client.call_tool("browser_navigation", {"action": "current_url", "tabId": tab_id})
        return moved, json.loads(unwrapped(text_of(where)))["url"]

    running = AgentThread(params_from_codex(codex_config()), body)
    running.start()
    [first] = wait_pending(ext)
    assert first["site"] == site
    assert ext.send({"type": "approval/answer", "id": first["id"], "decision": "session"}) == {
        "ok": True
    }  # A
    asked = deny_until_done(ext, running)
    moved, where = running.outcome()
    assert where == f"{site}/start", f"the tab left A for {where}"
    assert moved.is_error is True, text_of(moved)
    # Refused before anyone is asked, or asked for B (and denied): never run under A's grant.
    assert all(request["site"] == other(site) for request in asked), asked
    if not asked:
        assert refusal in text_of(moved)


def deny_until_done(ext: Extension, running: AgentThread) -> list[dict[str, Any]]:
    """Every further question is denied until the agent is done; answers the questions asked."""
    asked: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 120
    while running.is_alive():
        assert time.monotonic() < deadline, "the agent did not finish"
        for request in ext.send({"type": "approvals"})["pending"]:
            if request["id"] not in asked:
                asked[request["id"]] = request
                denied = ext.send({"type": "approval/answer", "id": request["id"], "decision": "deny"})
                assert denied == {"ok": True}
        running.join(0.05)
    return list(asked.values())
