"""Tools answered with a task (`io.modelcontextprotocol/tasks`): the host follows the task with the server's
`tasks/get`, reports it as the call's progress, cancels it with the call, and a host killed mid-task leaves
it for the next host, which finishes it and tells the browser the outcome."""

from __future__ import annotations

import json
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from conftest import HostDirs, stdio_server
from hostproc import FakeBrowserSide, HostProcess, install

from tests.support.bounds import TOOL_CALL_S

pytestmark = pytest.mark.host

CANCELLED = -32800
# Bounds from the product: a task poll is at most 0.1 s apart at the server's suggestion; a server starts
# within its startup limit (10 s by default); these leave the busy machine room.
WAIT = TOOL_CALL_S  # a task runs as a tool call does


def config(state: Path) -> str:
    return stdio_server("jobs", "tasks_server.py", str(state), extra='handshake = "auto"')


def start(dirs: HostDirs, state: Path) -> HostProcess:
    launcher = install(dirs.profile, dirs.config)
    host = HostProcess.start(launcher, env=dirs.env)
    host.initialize()
    host.wait_ready("jobs", timeout=WAIT)
    return host


@pytest.fixture
def state(host_dirs: HostDirs) -> Path:
    folder = host_dirs.root / "jobs"
    folder.mkdir(parents=True)
    host_dirs.config.parent.mkdir(parents=True, exist_ok=True)
    host_dirs.config.write_text(config(folder))
    return folder


def progress_of(host: HostProcess, request_id: str) -> list[dict[str, Any]]:
    return [
        n["params"]
        for n in host.notifications
        if n["method"] == "notifications/progress" and n["params"]["requestId"] == request_id
    ]


def run_job(host: HostProcess, label: str, polls: int = 1) -> Future[dict[str, Any]]:
    """Call `wait_job` (request id `call-<label>`), once the task's progress has told `polls` polls."""
    call = host.submit(
        "tools/call",
        {"server": "jobs", "tool": "wait_job", "arguments": {"label": label}},
        id=f"call-{label}",
    )
    seen = f"poll {polls}"
    host.wait_for(lambda _: any(seen in p.get("message", "") for p in progress_of(host, f"call-{label}")))
    return call


def kept_tasks(dirs: HostDirs) -> list[dict[str, Any]]:
    path = dirs.data / "tasks.json"
    return json.loads(path.read_text()) if path.exists() else []


def test_a_task_is_followed_to_its_result_with_progress(host_dirs: HostDirs, state: Path) -> None:
    host = start(host_dirs, state)
    try:
        call = run_job(host, "a", polls=2)
        assert [t["tool"] for t in kept_tasks(host_dirs)] == ["wait_job"]  # kept while it runs
        (state / "release").write_text("")
        answer = call.result(WAIT)
        assert answer["result"]["content"][0]["text"] == "job a done", answer
        progress = progress_of(host, "call-a")
        steps = [p["progress"] for p in progress]
        assert steps == sorted(set(steps)), progress  # rising, as MCP progress must
        assert kept_tasks(host_dirs) == []  # answered: forgotten
    finally:
        host.close()


def test_cancelling_the_call_cancels_the_task(host_dirs: HostDirs, state: Path) -> None:
    host = start(host_dirs, state)
    try:
        call = run_job(host, "b")
        task_id = kept_tasks(host_dirs)[0]["taskId"]
        host.cancel("call-b")
        answer = call.result(WAIT)
        assert answer["error"]["code"] == CANCELLED, answer
        assert (state / f"cancelled-{task_id}").exists()  # tasks/cancel reached the server
        assert kept_tasks(host_dirs) == []
    finally:
        host.close()


def test_a_task_outlives_a_killed_host_and_its_result_reaches_the_browser(
    host_dirs: HostDirs, state: Path
) -> None:
    first = start(host_dirs, state)
    try:
        run_job(first, "c")
    finally:
        first.kill()  # SIGKILL: nothing of the host runs after this
    [kept] = kept_tasks(host_dirs)
    assert (kept["server"], kept["tool"]) == ("jobs", "wait_job")
    assert not (state / f"cancelled-{kept['taskId']}").exists()

    (state / "release").write_text("")
    second = start(host_dirs, state)
    try:
        finished = second.wait_for(
            lambda notes: [n["params"] for n in notes if n["method"] == "notifications/tasks/finished"],
            timeout=WAIT,
        )
        assert finished == [
            {
                "server": "jobs",
                "tool": "wait_job",
                "taskId": kept["taskId"],
                "startedAt": kept["startedAt"],
                "result": {
                    "content": [{"type": "text", "text": "job c done"}],
                    "structuredContent": {"result": "job c done"},
                    "isError": False,
                },
            }
        ]
        second.wait_for(lambda _: kept_tasks(host_dirs) == [])
    finally:
        second.close()


def test_a_host_stopped_by_the_browser_keeps_the_task(host_dirs: HostDirs, state: Path) -> None:
    host = start(host_dirs, state)
    try:
        run_job(host, "d")
    finally:
        assert host.close() == 0  # stdin closed, as when Chrome goes: the call is cancelled, not the task
    [kept] = kept_tasks(host_dirs)
    assert not (state / f"cancelled-{kept['taskId']}").exists()


def test_a_tasks_question_is_asked_once_and_answered_with_tasks_update(
    host_dirs: HostDirs, state: Path
) -> None:
    host = start(host_dirs, state)
    browser = FakeBrowserSide(
        host, lambda method, params: {"action": "accept", "content": {"answer": "blue"}}
    )
    try:
        arguments = {"question": "Which colour?"}
        result = host.call(
            "tools/call", {"server": "jobs", "tool": "ask_job", "arguments": arguments}, timeout=WAIT
        )
        assert result["content"][0]["text"] == "answered: blue"
        [asked] = browser.seen  # once, though the poll after the answer still shows the question
        [task] = [json.loads(path.read_text()) for path in state.glob("task-*.json")]
        assert task["updates"] == 1
        assert (asked["method"], asked["params"]["message"]) == ("elicitation/create", "Which colour?")
    finally:
        browser.stop()
        host.close()
