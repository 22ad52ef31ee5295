"""A tool answered with a task (`io.modelcontextprotocol/tasks`), from the popup: the running call shows the
task's progress, Cancel cancels the task on its server, and a task whose host was killed under it finishes
under the next host, its result in the history."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.e2e.test_mcp import host_pids
from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import Extension, launch_with_mcp
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).resolve().parent.parent / "host" / "servers" / "tasks_server.py"
TOOL = "mcp__jobs__wait_job"
QUICK = "mcp__jobs__quick"


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jobs-state")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tasks")


@pytest.fixture(scope="module")
def ext(pw: Playwright, folder: Path, state: Path, host_env: dict[str, str]) -> Iterator[Extension]:
    config = (
        f"[mcp_servers.jobs]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, {json.dumps(str(state))}]\n"
    )
    with launch_with_mcp(pw, folder, config, host_env, offering=frozenset({TOOL, QUICK})) as ext:
        yield ext


def open_popup(ext: Extension) -> Page:
    page = ext.context.new_page()
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    return page


def run_job(page: Page, label: str) -> None:
    page.locator(f'button.tool[data-tool="{TOOL}"]').click()
    page.locator("#raw-toggle").check()
    page.locator("#raw-json").fill(json.dumps({"label": label}))
    page.locator("#run").click()
    expect(page.locator("#call")).to_be_visible()


def task_files(state: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in state.glob("task-*.json")]


def job(state: Path, label: str) -> dict[str, Any]:
    found = [task for task in task_files(state) if task["label"] == label]
    assert len(found) == 1, found
    return found[0]


def test_the_running_call_shows_the_tasks_progress_and_cancel_cancels_the_task(
    ext: Extension, state: Path
) -> None:
    page = open_popup(ext)
    run_job(page, "watched")
    # The server's statusMessage of each poll, as the call's progress.
    expect(page.locator("#progress-text")).to_contain_text("working on watched: poll")
    page.locator("#cancel").click()
    result = page.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "cancelled")
    task = job(state, "watched")
    wait_for(lambda: (state / f"cancelled-{task['taskId']}").exists(), "tasks/cancel on the server")
    assert job(state, "watched")["status"] == "cancelled"
    page.close()


def test_a_task_outlives_a_killed_host_and_its_result_is_in_the_history(
    ext: Extension, folder: Path, state: Path
) -> None:
    page = open_popup(ext)
    run_job(page, "survivor")
    expect(page.locator("#progress-text")).to_contain_text("working on survivor: poll")
    pids = host_pids(folder / "config.toml")
    assert pids, "the host Chromium started was not found"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    page.close()
    (state / "release").write_text("")  # the job finishes while no host follows it
    # The next MCP call starts a host again; it resumes the task and tells the browser the outcome.
    quick = {"type": "function_call", "name": QUICK, "arguments": json.dumps({"text": "hi"}), "call_id": "q1"}
    wait_for(lambda: ext.dispatch(quick).get("success") is True, "a new host answering", SERVERS_UP_S)
    wait_for(
        lambda: any(
            e["name"] == TOOL and e["status"] == "done" and "resumed" in e.get("note", "")
            for e in ext.send({"type": "history"})
        ),
        "the resumed task's entry in the history",
        SERVERS_UP_S,
    )
    page = open_popup(ext)
    entry = page.locator('#history .history-entry[data-status="done"]').filter(has_text=TOOL).first
    entry.click()
    expect(page.locator("#result")).to_contain_text("job survivor done")
    page.close()
