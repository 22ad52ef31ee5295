"""Each browser action declared once (core/browser/actions.py) and enforced by the wrapper that runs every
action (core/tools/handlers/browser.py): the dialog rule for the chrome.* executor's page reads as for the
debugger's commands, and the parallel gate per action, not per tool (issue 26, Deliver 3)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.agents.plain_words import call_words
from core.browser.actions import ACTIONS
from core.browser.tool_table import declared
from core.runtime.facade import Service
from tests.core.core_fakes import dispatch, function_call
from tests.core.fenced import block, fenced

pytestmark = pytest.mark.unit

TAB = {"id": 5, "url": "http://127.0.0.1:8001/a.html", "title": "A", "granted": True}
DIALOG = {"type": "alert", "message": "Saved.", "defaultPrompt": "", "session": None}


class Worker:
    """The service worker's executors as far as these calls reach: `tab`, the debugger's command lists
    (every `Runtime.evaluate` waits for `release`, and `entered` logs which started; finding Tabgate's
    isolated world answers at once), and the chrome.*
    page reads, which honour `unlessDialog` as browser_tools.js does."""

    def __init__(self) -> None:
        self.dialog: dict[str, Any] | None = None
        self.entered: list[str] = []
        self.release = asyncio.Event()

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        if tool == "tab":
            return TAB
        state = {"tab": TAB, "epoch": 1, "dialog": self.dialog, "sessions": []}
        if tool == "browser_page":
            if args.get("unlessDialog") and self.dialog is not None:
                return {"blockedByDialog": self.dialog, "tabId": TAB["id"]}
            return {"title": "A"}
        assert tool == "cdp", tool
        results = []
        for command in args["commands"]:
            if command["method"] != "Runtime.evaluate":  # finding Tabgate's world: at once
                results.append({"result": {"frameTree": {"frame": {"id": "F"}}, "executionContextId": 2}})
                continue
            expression = command["params"].get("expression", "")
            label = "scroll" if "scrollTo" in expression else "wait_for"
            self.entered.append(label)
            await self.release.wait()
            results.append({"result": {"result": {"value": [0, 0] if label == "scroll" else True}}})
        return {**state, "results": results}


def call(svc: Service, name: str, call_id: str, **args: Any) -> asyncio.Task[dict[str, Any]]:
    item = function_call(name, json.dumps({"tabId": 5, **args}), call_id)
    return asyncio.create_task(svc.handle(dispatch(item, turn="turn-1")))


async def started(worker: Worker, count: int) -> None:
    """Until `count` command lists have started, or every runnable task has run (then the test's assert
    says what did not start)."""
    for _ in range(200):
        if len(worker.entered) >= count:
            return
        await asyncio.sleep(0)


async def test_two_wait_fors_of_one_turn_run_together() -> None:
    worker = Worker()
    svc = Service(emit=lambda event: None, browser=worker)
    calls = [call(svc, "browser_dom", f"w{n}", action="wait_for", selector="#done") for n in (1, 2)]
    await started(worker, 2)
    assert worker.entered == ["wait_for", "wait_for"]  # a read does not wait for another read
    worker.release.set()
    answers = await asyncio.gather(*calls)
    assert [answer["success"] for answer in answers] == [True, True]


async def test_an_acting_call_runs_alone_in_its_turn() -> None:
    worker = Worker()
    svc = Service(emit=lambda event: None, browser=worker)
    acting = call(svc, "browser_dom", "s", action="scroll", y=100)
    await started(worker, 1)
    reading = call(svc, "browser_dom", "w", action="wait_for", selector="#done")
    await started(worker, 2)
    assert worker.entered == ["scroll"]  # the read waits for the acting call of its turn
    worker.release.set()
    answers = await asyncio.gather(acting, reading)
    assert worker.entered == ["scroll", "wait_for"]
    assert [answer["success"] for answer in answers] == [True, True]


async def test_a_page_read_while_a_dialog_is_open_says_how_to_answer_it() -> None:
    worker = Worker()
    worker.dialog = DIALOG
    svc = Service(emit=lambda event: None, browser=worker)
    answer = await svc.handle(dispatch(function_call("browser_page", '{"action": "title", "tabId": 5}')))
    assert answer["success"] is False
    how = 'Answer it first: browser_dom {"action": "dialog", "accept": true|false} (accept or dismiss it).'
    said = "Tab 5: a JavaScript alert is open. Its message:"
    assert fenced(answer["output"]["output"]) == block("Saved.", said, how)


def test_every_action_declares_its_words_its_gate_and_the_dialog_rule() -> None:
    for tool, actions in ACTIONS.items():
        for name, action in actions.items():
            assert action.words({}), (tool, name)
            assert action.parallel is action.info.reads, (tool, name)
            assert call_words(tool, name, {}) == action.words({})
    page_actions = [a for actions in ACTIONS.values() for a in actions.values() if a.access == "page"]
    blocked = {a for a in page_actions if a.blocked_by_dialog}
    dom, devtools = ACTIONS["browser_dom"], ACTIONS["browser_devtools"]
    # The dialog action answers it; console and network read what the executor recorded.
    assert set(page_actions) - blocked == {dom["dialog"], devtools["console"], devtools["network"]}
    screenshot = declared("browser_screenshot", None)
    assert screenshot is ACTIONS["browser_screenshot"]["capture"]  # the tool's default action
