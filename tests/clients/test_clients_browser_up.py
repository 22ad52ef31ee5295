"""Real agent CLIs drive the person's browser end to end (contract §8.1, §8.2): each client is set up only by
`tabgate-host connect <client>`, started with one prompt, and its model is a scripted one that opens the
fixture page, snapshots it and clicks its button. The person answers in the popup; the page sees the click;
what the client sent back to the model is fenced; the agents view names the client's own executable."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright

from tests.clients.client_runs import (
    agent_with_executable,
    answer_while_running,
    fenced_blocks,
    outside_fences,
    tabgate_entry,
)
from tests.support.agent_clis import CLIENTS, client_home, finish, inspector
from tests.support.browser import Extension
from tests.support.gateway_browser import BUTTON_TITLE, browser, env, gateway, open_popup, profile, site
from tests.support.npm_packages import NODE_22, installed
from tests.support.scripted_model import Call, Say, Step, scripted_model

pytestmark = pytest.mark.clients

__all__ = ["env", "profile", "site"]  # the shared module fixtures


@pytest.fixture(scope="module")
def up(pw: Playwright, profile: Path, env: dict[str, str]) -> Iterator[tuple[Extension, Page]]:
    """One browser for the module, agents let in, the popup open."""
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        yield ext, open_popup(ext)
        gateway(ext, False)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_the_client_opens_a_page_snapshots_and_clicks_with_the_persons_consent(
    client: str, up: tuple[Extension, Page], site: str
) -> None:
    ext, popup = up
    cli = CLIENTS[client]
    url = f"{site}/shop?{client}"
    script: list[Step] = [
        Call("browser_tab", {"action": "create", "url": url}),
        Call("browser_page", {"action": "snapshot"}),
        Call("browser_dom", {"action": "click", "selector": "#buy"}),
        Call("browser_page", {"action": "text"}),
        Say("clicked"),
    ]
    with client_home(client) as (home, config), scripted_model(cli.api, script) as model:
        entry = tabgate_entry(config)  # as `connect` wrote it; nothing else set Tabgate up
        process = cli.run(home, model.origin)
        answered = answer_while_running(ext, popup, process)
        output = finish(process, home, client)
        results = model.results
        assert tabgate_entry(config) == entry
    assert process.returncode == 0, output
    assert len(results) == 4, f"{client} sent back {results!r}; offered {model.offered}; output:\n{output}"
    assert answered and answered[0]["site"] == site, answered
    page = next(page for page in ext.context.pages if page.url == url)
    assert page.locator("#count").inner_text() == "clicks: 1"
    snapshot, _click, text = results[1], results[2], results[3]
    assert any('button "Buy"' in block for block in fenced_blocks(snapshot)), snapshot
    assert any("clicks: 1" in block for block in fenced_blocks(text)), text
    for result in results:  # the page's words reach the model only inside a fence
        assert "clicks: " not in outside_fences(result) and BUTTON_TITLE not in outside_fences(result), result
    agent = agent_with_executable(ext, cli.executable())
    # The program the OS reports (for Gemini CLI, node and the CLI's script), then the name the client gave.
    assert agent["calls"] >= 4 and agent["program"].startswith(cli.executable()), agent
    assert client in agent["program"] and agent["label"] == f"{agent['program']} · “{agent['name']}”", agent


def test_the_inspector_cli_lists_and_calls_tabgate_host_mcp(
    up: tuple[Extension, Page], tmp_path: Path
) -> None:
    ext, _popup = up
    listed = inspector(tmp_path, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert {"browser_tab", "browser_page", "browser_dom", "update_plan"} <= names
    called = inspector(
        tmp_path, "--method", "tools/call", "--tool-name", "browser_tab", "--tool-arg", "action=query"
    )
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result.get("isError") is not True and result["content"][0]["type"] == "text", result
    node22 = str(installed(NODE_22).resolve())
    assert agent_with_executable(ext, node22)["calls"] >= 1
