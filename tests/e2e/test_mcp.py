"""MCP end to end: Chromium → extension → real native host → real MCP servers (the bundled notes server,
a demo server with progress, and a hostile one), driven from the popup where a person would click."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.support.bounds import HOST_CONNECT_S, server_ready_s
from tests.support.browser import Extension, install_host, launch
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "host" / "servers" / "demo_server.py"
HOSTILE = HERE / "servers" / "hostile_server.py"
LIVE = HERE.parent / "host" / "servers" / "live_server.py"
STARTUP_S = 30


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-config") / "config.toml"


@pytest.fixture(scope="module")
def ext(
    pw: Playwright,
    tmp_path_factory: pytest.TempPathFactory,
    host_env: dict[str, str],
    config_file: Path,
) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-mcp")
    # `install` writes the default config (the bundled notes server) when there is none; add two more servers.
    install_host(profile, config_file, env=host_env)
    assert "[mcp_servers.notes]" in config_file.read_text()
    # Four Python servers starting at once on a busy 2-core machine each outlast the default 10 s limit, and
    # start again together after the same backoff: each gets STARTUP_S, as a person's slow machine would.
    limit = f"startup_timeout_sec = {STARTUP_S}\n"
    config_file.write_text(
        config_file.read_text().replace("[mcp_servers.notes]\n", f"[mcp_servers.notes]\n{limit}")
    )
    with config_file.open("a") as f:
        for name, script in (("demo", DEMO), ("hostile", HOSTILE), ("live", LIVE)):
            command = json.dumps(sys.executable)
            f.write(f'\n[mcp_servers.{name}]\ncommand = {command}\nargs = ["{script}"]\n{limit}')
    with launch(pw, profile, env=host_env) as extension:
        extension.wait_python_ready()
        # The host starts its servers side by side: four are bounded as one (`bounds.server_ready_s`).
        wait_for(
            lambda: servers_ready(extension),
            "all four MCP servers ready",
            HOST_CONNECT_S + server_ready_s(STARTUP_S),
        )
        yield extension


@pytest.fixture
def mcp_on(ext: Extension) -> Extension:
    """The user has turned MCP tools on (the first test does it in the popup; any test may run alone)."""
    assert ext.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
    return ext


def servers_ready(ext: Extension) -> bool:
    status = ext.send({"type": "status"})
    states = {s["name"]: s["status"] for s in status["servers"]}
    return status["host"] == "connected" and states == {
        "notes": "ready",
        "demo": "ready",
        "hostile": "ready",
        "live": "ready",
    }


def call(ext: Extension, name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    item = {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}
    answer: dict[str, Any] = ext.dispatch(item)
    return answer


def ok_result(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["success"] is True, answer
    assert answer["output"]["type"] == "mcp_tool_call_output"
    result: dict[str, Any] = answer["output"]["result"]["Ok"]
    assert result["isError"] is False
    return result


def open_popup(ext: Extension) -> Page:
    page = ext.context.new_page()
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    return page


def open_tool(page: Page, name: str, args: dict[str, Any] | None = None) -> None:
    page.locator(f'button.tool[data-tool="{name}"]').click()
    if args is not None:
        page.locator("#raw-toggle").check()
        page.locator("#raw-json").fill(json.dumps(args))


def host_pids(config: Path) -> list[int]:
    """The host processes Chromium started for this profile (their launcher passes our --config)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"native_host.cli" in argv and str(config).encode() in argv:
            pids.append(int(entry.name))
    return pids


# The first test runs on a fresh profile: mcpTools is still off, as it is for every new user.
def test_mcp_tools_appear_in_the_popup_after_turning_mcp_tools_on(ext: Extension) -> None:
    page = open_popup(ext)
    expect(page.locator("#status")).to_contain_text("host connected")
    expect(page.locator('.tool-group[data-group="builtin"]')).to_be_visible()
    expect(page.locator('.tool-group[data-group="mcp:notes"]')).to_have_count(0)
    switch = page.locator("#mcp-tools")
    expect(switch).to_be_visible()
    expect(switch).not_to_be_checked()
    switch.check()
    expect(page.locator('.tool-group[data-group="mcp:notes"]')).to_be_visible()
    expect(page.locator('button.tool[data-tool="mcp__notes__add_note"]')).to_be_visible()
    expect(page.locator('.tool-group[data-group="mcp:demo"]')).to_be_visible()
    assert ext.send({"type": "config/get"})["mcpTools"] is True
    page.close()


def test_a_call_to_the_bundled_notes_server_works(mcp_on: Extension) -> None:
    ext = mcp_on
    title = f"e2e note {time.time_ns()}"
    added = ok_result(call(ext, "mcp__notes__add_note", {"title": title, "body": "kept in SQLite"}, "n-1"))
    note_id = added["structuredContent"]["id"]
    found = ok_result(call(ext, "mcp__notes__search_notes", {"query": title}, "n-2"))
    assert [n["id"] for n in found["structuredContent"]["notes"]] == [note_id]
    listing = call(ext, "list_mcp_resources", {"server": "notes"}, "n-3")
    assert listing["success"] is True
    resources = json.loads(listing["output"]["output"])["resources"]
    uri = next(r["uri"] for r in resources if r["name"] == title)
    read = call(ext, "read_mcp_resource", {"server": "notes", "uri": uri}, "n-4")
    assert "kept in SQLite" in read["output"]["output"]


def test_mcp_calls_emit_begin_and_end_events(mcp_on: Extension) -> None:
    ext = mcp_on
    ext.page.evaluate(
        """() => {
            window.__events = [];
            const port = chrome.runtime.connect({name: "events"});
            port.onMessage.addListener((e) => window.__events.push(e));
        }"""
    )
    ok_result(call(ext, "mcp__demo__add", {"a": 2, "b": 3}, "ev-1"))
    events = wait_for(
        lambda: [e for e in ext.page.evaluate("window.__events") if e.get("call_id") == "ev-1"], "events"
    )
    wait_for(
        lambda: len([e for e in ext.page.evaluate("window.__events") if e.get("call_id") == "ev-1"]) >= 2,
        "end",
    )
    events = [e for e in ext.page.evaluate("window.__events") if e.get("call_id") == "ev-1"]
    assert [e["type"] for e in events] == ["McpToolCallBegin", "McpToolCallEnd"]
    assert events[0]["invocation"] == {"server": "demo", "tool": "add", "arguments": {"a": 2, "b": 3}}
    assert events[1]["result"]["Ok"]["structuredContent"] == {"result": 5}
    assert events[1]["duration_ms"] >= 0


def test_hostile_markup_from_a_server_is_shown_as_text_and_runs_nothing(mcp_on: Extension) -> None:
    ext = mcp_on
    page = open_popup(ext)
    page.locator("#tool-filter").fill("markup")
    open_tool(page, "mcp__hostile__markup")
    expect(page.locator("#tool-desc")).to_contain_text('<img src=x onerror="window.__tabgatePwned=1">')
    page.locator("#run").click()
    result = page.locator("#result .result")
    expect(result).to_contain_text("<script>window.__tabgatePwned=2</script>")
    expect(result).to_contain_text("<b>bold?</b>")
    assert page.locator("#result img, #result script, #result b, #tool-desc img").count() == 0
    assert page.evaluate("window.__tabgatePwned") is None
    page.close()


def test_progress_is_shown_and_cancel_stops_the_call(mcp_on: Extension) -> None:
    ext = mcp_on
    page = open_popup(ext)
    open_tool(page, "mcp__demo__slow", {"seconds": 30, "steps": 30, "tag": "popup-cancel"})
    page.locator("#run").click()
    expect(page.locator("#call")).to_be_visible()
    wait_for(lambda: float(page.locator("#progress").get_attribute("value") or 0) > 0, "a progress update")
    page.locator("#cancel").click()
    result = page.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "cancelled")
    expect(result.locator(".badge")).to_have_text("Cancelled")
    expect(result).to_contain_text("cancel")
    page.close()


def test_a_call_finished_while_the_popup_was_closed_is_in_the_history(mcp_on: Extension) -> None:
    ext = mcp_on
    page = open_popup(ext)
    open_tool(page, "mcp__demo__slow", {"seconds": 1.5, "steps": 3, "tag": "closed-popup"})
    page.locator("#run").click()
    expect(page.locator("#call")).to_be_visible()
    page.close()  # the person closes the popup while the call runs
    wait_for(
        lambda: any(
            e["name"] == "mcp__demo__slow" and e["status"] == "done" for e in ext.send({"type": "history"})
        ),
        "the call to finish in the service worker",
    )
    page = open_popup(ext)
    entry = (
        page.locator('#history .history-entry[data-status="done"]').filter(has_text="mcp__demo__slow").first
    )
    expect(entry).to_be_visible()
    entry.click()
    expect(page.locator("#result .result")).to_contain_text("slept 1.5")
    page.close()


def test_calls_work_across_a_forced_service_worker_stop(mcp_on: Extension) -> None:
    ext = mcp_on
    ok_result(call(ext, "mcp__demo__add", {"a": 1, "b": 1}, "sw-1"))
    ext.stop_service_worker()
    assert ok_result(call(ext, "mcp__demo__add", {"a": 2, "b": 2}, "sw-2"))["structuredContent"] == {
        "result": 4
    }


def test_a_killed_host_shows_as_exited_and_the_next_call_reconnects(
    mcp_on: Extension, config_file: Path
) -> None:
    ext = mcp_on
    ok_result(call(ext, "mcp__demo__add", {"a": 1, "b": 2}, "kill-0"))
    pids = host_pids(config_file)
    assert len(pids) == 1, pids
    os.kill(pids[0], signal.SIGKILL)
    status = wait_for(
        lambda: (s := ext.send({"type": "status"}))["host"] == "exited" and s, "status to say the host exited"
    )
    assert status["hostError"] == "Native host has exited."
    result = ok_result(call(ext, "mcp__demo__add", {"a": 20, "b": 22}, "kill-1"))
    assert result["structuredContent"] == {"result": 42}
    assert ext.send({"type": "status"})["host"] == "connected"
    assert host_pids(config_file) not in ([], pids)


def tool_names(ext: Extension) -> list[str]:
    return [tool["name"] for tool in ext.send({"type": "tools"})["tools"]]


def test_a_tool_a_server_adds_at_run_time_is_offered_and_runs_without_reopening_anything(
    mcp_on: Extension,
) -> None:
    ext = mcp_on
    assert "mcp__live__sprout" not in tool_names(ext)
    ok_result(call(ext, "mcp__live__grow", {"name": "sprout"}, "live-1"))
    wait_for(lambda: "mcp__live__sprout" in tool_names(ext), "the added tool in `tools`")
    result = ok_result(call(ext, "mcp__live__sprout", {}, "live-2"))
    assert result["content"][0]["text"] == "grown:sprout"


def test_prompts_are_listed_and_fetched_through_the_runtime_api(ext: Extension) -> None:
    listed = ext.send({"type": "prompts", "server": "live"})
    assert [(p["server"], p["name"]) for p in listed["prompts"]] == [("live", "greet")]
    got = ext.send({"type": "prompt/get", "server": "live", "name": "greet", "arguments": {"name": "Ada"}})
    assert got["messages"][0]["content"]["text"] == "Hello, Ada!"
    refused = ext.send({"type": "prompt/get", "server": "nowhere", "name": "greet"})
    assert refused["error"]["code"] == -32011


def test_a_servers_log_messages_are_readable_per_server(mcp_on: Extension) -> None:
    ext = mcp_on
    ok_result(call(ext, "mcp__live__say", {"level": "warning", "text": "e2e log line"}, "live-3"))

    def kept() -> list[dict[str, Any]]:
        logs = ext.send({"type": "server/logs", "server": "live"})
        assert logs["server"] == "live", logs
        return [e for e in logs["logs"] if e["data"] == "e2e log line #0"]

    entry = wait_for(kept, "the log line in server/logs")[0]
    assert (entry["level"], entry["logger"]) == ("warning", "live")
