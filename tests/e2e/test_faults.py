"""Faults through the whole chain (issue 9): an extension page → service worker → Python → real host → real
MCP servers, in Debian's Chromium. Each test is one scenario a new user ran into: a server that exits or is
killed, a worker Chrome stops mid-call, two pages calling at once, a server that never answers at start, big
results through the history, malformed requests. Deadlines here are generous limits on waiting, never timing
assertions: the figures are in `python3 build.py bench` (tests/support/fault_bench.py)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright

from tests.core.fenced import unwrapped
from tests.support.bounds import server_ready_s
from tests.support.browser import Extension, grant_site_access, install_host, launch
from tests.support.faults import (
    FAULT_SERVER,
    SILENT_SERVER,
    blob_intact,
    call_blob,
    call_record,
    dispatch_message,
    finished_call,
    function_call,
    quiet_page,
    server_states,
    settled_entry,
    start_call,
    stdio_server,
)
from tests.support.local_site import serve
from tests.support.polling import history, history_entry, stored_running, wait_for

pytestmark = pytest.mark.faults

HISTORY_ANSWER_LIMIT = 256 * 1024  # contract §5: a stored answer over 256 KiB is shortened
HISTORY_BYTES_LIMIT = 5 * 1024 * 1024  # contract §5: history holds at most 5 MiB
NOT_RUNNING = {"done", "failed", "fatal", "rejected", "interrupted"}


# ------------------------------------------------------------------ a site with a page that never loads


class _SlowSite(BaseHTTPRequestHandler):
    """`/slow/<ms>` answers a page after <ms> milliseconds; anything else at once."""

    def do_GET(self) -> None:
        if self.path.startswith("/slow/"):
            time.sleep(int(self.path.split("/")[2].split("?")[0]) / 1000)
        body = b"<!doctype html><title>fault site</title><p>nothing here ever matches #never</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_SlowSite) as origin:  # a page still "loading" when the test ends does not hold up shutdown
        yield origin


# ------------------------------------------------------------------ the browser under test


@pytest.fixture(scope="module")
def gates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a test drops `<server>.down` to keep that fault server from starting."""
    return tmp_path_factory.mktemp("fault-gates")


# On a shared 2-core machine Python servers can take more than the default 10 s to start, and the first
# extension page more than Playwright's 30 s to open.
STARTUP_S = 60
BOOT_S = 180
SERVERS_READY_S = server_ready_s(STARTUP_S)  # what the host allows the servers with that startup limit
SERVERS = ("fault", "exits", "killed", "held")  # `fault` for long and big calls, one per failure scenario


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], site: str, gates: Path
) -> Iterator[Extension]:
    """MCP tools on, the fault site granted, four fault servers (each scenario breaks its own server, so
    one that never comes back does not fail the next scenario)."""
    profile = tmp_path_factory.mktemp("profile-faults")
    config = profile / "config.toml"
    config.write_text(
        "".join(
            stdio_server(
                name,
                FAULT_SERVER,
                env={"FAULT_GATE": str(gates / f"{name}.down")},
                startup_timeout_sec=STARTUP_S,
            )
            for name in SERVERS
        )
    )
    with launch(pw, profile, open_timeout_ms=BOOT_S * 1000):
        pass  # installs the extension (before the host, so that no server starts), for the grant to edit
    grant_site_access(pw, profile, [site])
    install_host(profile, config, env=host_env)
    with launch(pw, profile, env=host_env, open_timeout_ms=BOOT_S * 1000) as extension:
        extension.wait_python_ready(BOOT_S)
        assert extension.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
        wait_for(
            lambda: server_states(extension) == dict.fromkeys(SERVERS, "ready"),
            "the servers ready",
            SERVERS_READY_S,
        )
        yield extension


@pytest.fixture
def servers_up(ext: Extension) -> None:
    """Every server ready: a scenario that breaks nothing starts from a healthy chain, whatever ran before."""
    wait_for(
        lambda: server_states(ext) == dict.fromkeys(SERVERS, "ready"), "the servers ready", SERVERS_READY_S
    )


@pytest.fixture
def caller(ext: Extension) -> Iterator[Page]:
    page = quiet_page(ext)
    yield page
    page.close()


def call(ext: Extension, name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = ext.dispatch(function_call(name, arguments, call_id))
    return answer


def mcp_ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer.get("success") is True, answer
    result: dict[str, Any] = answer["output"]["result"]["Ok"]
    assert result["isError"] is False, result
    return result


def failure_text(answer: dict[str, Any]) -> str:
    """What the model reads back from a failed call, whatever the output item's kind."""
    assert answer.get("success") is False, answer
    output = answer["output"]
    if output["type"] == "mcp_tool_call_output":
        result = output["result"]
        return str(result["Err"]) if "Err" in result else json.dumps(result["Ok"])
    return str(output["output"])


def server_pid(ext: Extension, server: str, call_id: str) -> int:
    pid: int = mcp_ok(call(ext, f"mcp__{server}__pid", {}, call_id))["structuredContent"]["result"]
    return pid


def offered(ext: Extension) -> set[str]:
    return {t["name"] for t in ext.send({"type": "tools"}, timeout_s=10)["tools"]}


def works_again(ext: Extension, server: str, call_id: str, timeout_s: float = 30) -> dict[str, Any]:
    """Poll the server's echo tool as a model would, with no other action, until a call succeeds."""
    attempts = iter(range(10_000))

    def attempt() -> dict[str, Any] | None:
        answer = call(ext, f"mcp__{server}__echo", {"text": "back"}, f"{call_id}-{next(attempts)}")
        if answer.get("success") is True:
            return answer
        assert "unsupported call" not in failure_text(answer), answer
        return None

    answer: dict[str, Any] = wait_for(attempt, f"mcp__{server}__echo to work again", timeout_s, every_s=0.2)
    return answer


# ------------------------------------------------------------------ malformed requests, history/clear


def test_a_malformed_item_is_rejected_as_invalid_params_and_recorded_rejected(ext: Extension) -> None:
    item = {"type": "function_call", "arguments": "{}", "call_id": "malformed-1"}  # no name
    answer = ext.send({"type": "dispatch", "item": item})
    assert set(answer) == {"error", "outcome"} and answer["outcome"] == "rejected", answer
    assert answer["error"]["code"] == -32602
    assert "name" in answer["error"]["message"]
    assert settled_entry(ext, "malformed-1")["status"] == "rejected"


def test_an_unknown_message_type_is_answered_method_not_found(ext: Extension) -> None:
    answer = ext.send({"type": "no/such/type"})
    assert set(answer) == {"error"}, answer
    assert answer["error"]["code"] == -32601
    assert "no/such/type" in answer["error"]["message"]


def test_history_clear_empties_the_history_and_says_how_many_it_removed(ext: Extension) -> None:
    for n in range(3):
        mcp_ok(call(ext, "mcp__fault__echo", {"text": f"kept {n}"}, f"clear-{n}"))
    wait_for(lambda: all(history_entry(ext, f"clear-{n}") for n in range(3)), "three entries")
    before = len(history(ext))
    cleared = ext.send({"type": "history/clear"})["cleared"]
    # An entry another test's call records meanwhile is cleared and counted too.
    assert cleared >= before >= 3
    assert history(ext) == []
    mcp_ok(call(ext, "mcp__fault__echo", {"text": "after"}, "clear-after"))
    assert [e["id"] for e in history(ext)] == ["clear-after"]


# ------------------------------------------------------------------ callers never wait for each other


def test_a_browser_call_from_another_page_answers_while_a_long_mcp_call_runs(
    ext: Extension, caller: Page
) -> None:
    start_call(caller, "long", dispatch_message("mcp__fault__sleep", {"seconds": 8}, "two-pages-long"))
    wait_for(lambda: (e := history_entry(ext, "two-pages-long")) and e["status"] == "running", "long call")
    other = quiet_page(ext)
    try:
        start_call(other, "tab", dispatch_message("browser_tab", {"action": "query"}, "two-pages-tab"))
        tab = finished_call(other, "tab", timeout_s=30)
    finally:
        other.close()
    assert tab["answer"]["success"] is True, tab
    long = finished_call(caller, "long", timeout_s=30)
    assert long["answer"]["success"] is True, long
    assert tab["endedAt"] < long["endedAt"], (
        f"the tab query answered {tab['endedAt'] - tab['startedAt']} ms after it was sent, "
        f"{tab['endedAt'] - long['endedAt']} ms after the MCP call on the other page finished"
    )


# ------------------------------------------------------------------ servers come back by themselves


def test_a_server_that_exits_mid_call_fails_that_call_naming_it_then_works_again(ext: Extension) -> None:
    before = server_pid(ext, "exits", "exit-0")
    answer = call(ext, "mcp__exits__crash", {}, "exit-crash")
    assert "exits" in failure_text(answer)
    assert "mcp__exits__echo" in offered(ext)
    assert works_again(ext, "exits", "exit-after")["output"]["result"]["Ok"]["content"][0]["text"] == "back"
    assert server_pid(ext, "exits", "exit-1") != before


def test_a_killed_server_comes_back_by_itself(ext: Extension) -> None:
    before = server_pid(ext, "killed", "kill-0")
    os.kill(before, signal.SIGKILL)
    assert "mcp__killed__echo" in offered(ext)
    works_again(ext, "killed", "kill-after")
    assert server_pid(ext, "killed", "kill-1") != before


def test_while_a_server_is_down_its_tools_stay_offered_and_calls_name_it(ext: Extension, gates: Path) -> None:
    pid = server_pid(ext, "held", "down-0")
    gate = gates / "held.down"
    gate.write_text("held down by the test")
    try:
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: server_states(ext).get("held") not in ("ready", None), "the server to be seen down")
        down = next(s for s in ext.send({"type": "status"})["servers"] if s["name"] == "held")
        assert down["status"] in ("restarting", "failed"), down
        assert {"mcp__held__echo", "mcp__held__pid"} <= offered(ext)
        message = failure_text(call(ext, "mcp__held__echo", {"text": "x"}, "down-call"))
        assert "held" in message
        assert "unsupported call" not in message
        assert mcp_ok(call(ext, "mcp__fault__echo", {"text": "other"}, "down-other"))  # others unaffected
    finally:
        gate.unlink()
    works_again(ext, "held", "down-after")


# ------------------------------------------------------------------ a worker stopped mid-call


def stop_worker_mid_call(ext: Extension, caller: Page, call_id: str, name: str, args: dict[str, Any]) -> None:
    """Start the call, wait until it is stored `running`, stop every service worker, then check that the
    entry does not stay `running` and that the next calls work."""
    start_call(caller, call_id, dispatch_message(name, args, call_id))
    recorded = wait_for(lambda: history_entry(ext, call_id), f"{call_id} to be recorded")
    assert recorded["status"] == "running", (recorded, call_record(caller, call_id))
    stored_running(ext, call_id)
    ext.stop_service_worker()
    entry = settled_entry(ext, call_id)
    assert entry["status"] in NOT_RUNNING, entry
    plan = call(ext, "update_plan", {"plan": [{"step": "next", "status": "pending"}]}, f"{call_id}-plan")
    assert plan["success"] is True, plan
    assert mcp_ok(call(ext, "mcp__fault__echo", {"text": "next"}, f"{call_id}-next"))


def test_a_worker_stopped_during_an_mcp_call_leaves_no_entry_running(ext: Extension, caller: Page) -> None:
    stop_worker_mid_call(ext, caller, "stop-mcp", "mcp__fault__sleep", {"seconds": 20})


def test_a_worker_stopped_during_a_navigation_leaves_no_entry_running(
    ext: Extension, caller: Page, site: str
) -> None:
    tab = call(ext, "browser_tab", {"action": "create", "url": f"{site}/ready", "active": False}, "nav-tab")
    assert tab["success"] is True, tab
    tab_id = json.loads(unwrapped(tab["output"]["output"]))["id"]
    args = {"action": "navigate", "tabId": tab_id, "url": f"{site}/slow/60000", "timeoutMs": 25000}
    stop_worker_mid_call(ext, caller, "stop-nav", "browser_navigation", args)
    query = call(ext, "browser_tab", {"action": "query", "url": f"{site}/*"}, "stop-nav-query")
    assert query["success"] is True, query


def test_a_worker_stopped_during_a_dom_wait_leaves_no_entry_running(
    ext: Extension, caller: Page, site: str
) -> None:
    page = ext.context.new_page()
    try:
        page.goto(f"{site}/dom-wait")
        tabs = call(ext, "browser_tab", {"action": "query", "url": f"{site}/dom-wait"}, "dom-tab")
        tab_id = json.loads(unwrapped(tabs["output"]["output"]))[0]["id"]
        args = {"action": "wait_for", "tabId": tab_id, "selector": "#never", "timeoutMs": 25000}
        stop_worker_mid_call(ext, caller, "stop-dom", "browser_dom", args)
        text = call(ext, "browser_page", {"action": "text", "tabId": tab_id}, "stop-dom-text")
        assert "nothing here ever matches" in text["output"]["output"], text
    finally:
        page.close()


# ------------------------------------------------------------------ big results through history


@pytest.mark.usefixtures("servers_up")
def test_thirty_large_results_reach_the_caller_whole_and_history_keeps_them_short(
    ext: Extension, caller: Page
) -> None:
    size = 900_000
    for n in range(30):
        summary = call_blob(caller, "fault", size, f"big30-{n}")
        assert blob_intact(summary, size), (n, summary)
    entries = history(ext)
    assert len(json.dumps(entries, separators=(",", ":"))) <= HISTORY_BYTES_LIMIT * 1.01
    mine = wait_for(
        lambda: (
            (es := [e for e in history(ext) if e["id"].startswith("big30-")])
            and all(e["status"] != "running" for e in es)
            and es
        ),
        "the large calls' entries to settle",
    )
    assert {e["status"] for e in mine} == {"done"}, [(e["id"], e["status"]) for e in mine]
    for entry in mine:
        assert entry["truncated"]["bytes"] >= size, entry["id"]
        assert len(json.dumps(entry["answer"], separators=(",", ":"))) <= HISTORY_ANSWER_LIMIT * 1.01
    assert "big30-29" in {e["id"] for e in mine}  # the newest is kept
    plan = call(ext, "update_plan", {"plan": [{"step": "after", "status": "pending"}]}, "big30-plan")
    assert plan["success"] is True, plan


@pytest.mark.usefixtures("servers_up")
def test_a_60_mb_result_reaches_the_caller_whole_and_history_shortens_it(
    ext: Extension, caller: Page
) -> None:
    size = 60_000_000
    summary = call_blob(caller, "fault", size, "big60", timeout_s=120)
    assert blob_intact(summary, size), summary
    entry = settled_entry(ext, "big60")
    assert entry["status"] == "done"
    assert entry["truncated"]["bytes"] >= size
    assert len(json.dumps(entry["answer"], separators=(",", ":"))) <= HISTORY_ANSWER_LIMIT * 1.01
    plan = call(ext, "update_plan", {"plan": [{"step": "after", "status": "pending"}]}, "big60-plan")
    assert plan["success"] is True, plan


# ------------------------------------------------------------------ a server that never answers at start


@pytest.fixture(scope="module")
def ext_hung(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    """`hung` reads its input and never answers `initialize`; its startup limit is a day."""
    profile = tmp_path_factory.mktemp("profile-hung")
    config = profile / "config.toml"
    config.write_text(
        stdio_server("hung", SILENT_SERVER, startup_timeout_sec=86400)
        + stdio_server("fault", FAULT_SERVER, startup_timeout_sec=STARTUP_S)
    )
    install_host(profile, config, env=host_env)
    with launch(pw, profile, env=host_env, open_timeout_ms=BOOT_S * 1000) as extension:
        extension.wait_python_ready(BOOT_S)
        assert extension.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
        wait_for(
            lambda: server_states(extension).get("fault") == "ready",
            "the fault server ready",
            SERVERS_READY_S,
        )
        yield extension


def test_a_server_hung_at_start_holds_up_nothing(ext_hung: Extension) -> None:
    ext = ext_hung
    assert server_states(ext) == {"hung": "starting", "fault": "ready"}
    limit_s = 10  # far above "at once"; the hung server's own limit is 86400 s
    plan = ext.send(
        dispatch_message("update_plan", {"plan": [{"step": "a", "status": "pending"}]}, "hung-plan"), limit_s
    )
    assert plan["success"] is True, plan
    tabs = ext.send(dispatch_message("browser_tab", {"action": "query"}, "hung-tab"), limit_s)
    assert tabs["success"] is True, tabs
    names = {t["name"] for t in ext.send({"type": "tools"}, limit_s)["tools"]}
    assert {"update_plan", "browser_tab", "mcp__fault__echo"} <= names
    echo = ext.send(dispatch_message("mcp__fault__echo", {"text": "hi"}, "hung-echo"), limit_s)
    assert mcp_ok(echo)["content"][0]["text"] == "hi"
    assert server_states(ext)["hung"] == "starting"
