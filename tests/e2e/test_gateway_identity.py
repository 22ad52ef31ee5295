"""Who an agent is, end to end (contract §8.2): real Node agents (the official TypeScript SDK, as Gemini CLI
and the MCP Inspector are to the OS: `node <script>`) reach the person's browser through `tabgate-host mcp`
at its default place. Trusting one script (on the options page) trusts no other script, node itself cannot be
trusted, inline code is never trusted, and a name imitating a path is shown cleaned, after the program, in the
popup."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Playwright, expect

from tests.support.browser import Extension, tabgate_host_bin
from tests.support.gateway_browser import gateway_browser, open_popup, serve_page, wait_pending
from tests.support.npm_packages import node_path
from tests.support.polling import wait_for
from tests.support.script_agents import agent_env, finished, node_agent_code, start_agent, write_node_agent

pytestmark = pytest.mark.e2e

PAGE = b"<!doctype html><title>Identity fixture</title><p>hello</p>"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_page(PAGE) as origin:
        yield origin


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], site: str
) -> Iterator[Extension]:
    with gateway_browser(pw, tmp_path_factory.mktemp("identity"), host_env, [site]) as ext:
        yield ext
        ext.send({"type": "config/set", "patch": {"gatewayTrusted": []}})


def node_agent(argv: list[str], name: str, site: str, cwd: Path) -> Any:
    """A Node agent asking to open a tab on the site, running (its client's default environment)."""
    call = {"name": "browser_tab", "arguments": {"action": "create", "url": f"{site}/{name}"}}
    return start_agent([node_path(), *argv], agent_env(tabgate_host_bin(), name, call), cwd)


def asked_and_denied(ext: Extension, agent: Any) -> dict[str, Any]:
    """The person is asked for the agent's call and denies it; the question as it was shown."""
    [request] = wait_pending(ext)
    assert ext.send({"type": "approval/answer", "id": request["id"], "decision": "deny"}) == {"ok": True}
    result = finished(agent)
    assert result["isError"] is True and "denied" in json.dumps(result)
    return dict(request)


def agent_named(ext: Extension, name: str) -> dict[str, Any]:
    return next(a for a in ext.send({"type": "agents"})["agents"] if a["name"] == name)


def test_trusting_one_node_script_trusts_neither_another_nor_node_itself_nor_inline_code(
    ext: Extension, site: str, tmp_path: Path
) -> None:
    gemini, inspector = write_node_agent(tmp_path / "gemini"), write_node_agent(tmp_path / "inspector")
    first = node_agent([str(gemini)], "gemini", site, tmp_path)
    asked_and_denied(ext, first)  # not trusted yet: asked
    trusted = agent_named(ext, "gemini")
    assert trusted["trustEntry"] == {
        "executable": os.path.realpath(node_path()),
        "script": str(gemini.resolve()),
    }
    # The person trusts it on the options page (Python puts its entry in the config)...
    options = ext.context.new_page()
    options.goto(f"chrome-extension://{ext.id}/ui/options.html")
    options.locator(f'li.agent[data-agent="{trusted["id"]}"] input[type=checkbox]').check()
    stored = wait_for(lambda: ext.send({"type": "config/get"})["gatewayTrusted"], "the trust to be stored")
    assert stored == [trusted["trustEntry"]]
    options.close()
    # Trust in node itself (as trusting Gemini CLI by its executable once was) is refused, naming it.
    patch = {"gatewayTrusted": [trusted["trustEntry"], os.path.realpath(node_path())]}
    refused = ext.send({"type": "config/set", "patch": patch})
    assert f"{os.path.realpath(node_path())!r} is the interpreter node" in refused["error"]["message"]
    assert ext.send({"type": "config/get"})["gatewayTrusted"] == [trusted["trustEntry"]]
    assert finished(node_agent([str(gemini)], "gemini", site, tmp_path))["isError"] is False  # not asked

    other = asked_and_denied(ext, node_agent([str(inspector)], "gemini", site, tmp_path))
    assert other["executable"] == f"{os.path.realpath(node_path())} {inspector.resolve()}"
    inline = node_agent(["--input-type=module", "-e", node_agent_code()], "inline", site, tmp_path)
    assert asked_and_denied(ext, inline)["executable"].endswith("(code given on its command line)")
    bare = agent_named(ext, "inline")
    assert (bare["trusted"], bare["trustEntry"]) == (False, None)
    assert "Cannot act without asking: it is the interpreter node" in bare["notTrustable"]


def test_a_name_imitating_a_path_is_shown_cleaned_after_the_program(
    ext: Extension, site: str, tmp_path: Path
) -> None:
    script = write_node_agent(tmp_path / "agent")
    program = f"{os.path.realpath(node_path())} {script.resolve()}"
    popup = open_popup(ext)
    agent = node_agent([str(script)], "codex — /opt/codex/bin/codex\u202e", site, tmp_path)
    request = popup.locator("li.approval").first
    request.wait_for()
    who = request.locator(".approval-client")
    expect(who.locator(".agent-program")).to_have_text(program)
    expect(who.locator(".agent-name")).to_have_text(" “codex opt codex bin codex”")
    assert who.inner_text().startswith(program)  # the program first: the name cannot stand before it
    request.locator('button[data-decision="deny"]').click()
    assert finished(agent)["isError"] is True
    card = popup.locator("li.agent-card", has_text="codex opt codex bin codex")
    expect(card.locator(".agent-program")).to_have_text(program)
    expect(card.locator(".agent-untrustable")).to_have_count(0)  # a script can be trusted
