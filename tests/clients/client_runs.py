"""What the `clients` tests share: the person answering in the popup while a real client runs, and the checks
on what reached the scripted model."""

from __future__ import annotations

import re
import subprocess
import time
from typing import Any

from playwright.sync_api import Page

from native_host.setup.connect import SERVER_NAME, AgentFile, parse, servers_of
from tests.support.agent_clis import RUN_SECONDS
from tests.support.browser import Extension

_FENCE = re.compile(
    r"--- page content ([0-9a-f]{16,}) \(untrusted.*?--- end of page content \1 ---", re.DOTALL
)


def tabgate_entry(file: AgentFile) -> object:
    """The `tabgate` server the client reads from its config (clients rewrite their own state in some)."""
    text = file.path.read_text()
    return servers_of(file, parse(file, text)).get(SERVER_NAME)


def _readable(text: str) -> str:
    """A tool result as a model reads it (clients that wrap results in JSON escape newlines and quotes)."""
    return text.replace("\\n", "\n").replace('\\"', '"')


def outside_fences(text: str) -> str:
    """`text` with every fenced block of page content taken out."""
    return _FENCE.sub("", _readable(text))


def fenced_blocks(text: str) -> list[str]:
    return [match[0] for match in _FENCE.finditer(_readable(text))]


def answer_while_running(ext: Extension, popup: Page, process: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """Play the person until the client exits: the first question is answered in the popup (*Allow for this
    session*), any later one through the runtime API as the popup does. Returns the questions answered."""
    answered: list[dict[str, Any]] = []
    deadline = time.monotonic() + RUN_SECONDS
    while process.poll() is None and time.monotonic() < deadline:
        for question in ext.send({"type": "approvals"})["pending"]:
            if question["id"] in {seen["id"] for seen in answered}:
                continue
            if answered:
                ext.send({"type": "approval/answer", "id": question["id"], "decision": "once"})
            else:
                popup.reload()
                shown = popup.locator("li.approval").first
                shown.wait_for()
                shown.locator('button[data-decision="session"]').click()
            answered.append(question)
        time.sleep(0.1)
    return answered


def agent_with_executable(ext: Extension, executable: str) -> dict[str, Any]:
    agents = ext.send({"type": "agents"})["agents"]
    found = [agent for agent in agents if agent["executable"] == executable]
    assert found, f"no agent runs as {executable}: {[(a['name'], a['executable']) for a in agents]}"
    return dict(found[0])
