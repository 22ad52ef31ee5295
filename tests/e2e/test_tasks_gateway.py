"""An agent calling a tool answered with a task, through the gateway (`tabgate-host mcp`), with a
`progressToken`: the task's progress reaches the agent as `notifications/progress`, then its result."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import StdioServerParameters
from mcp.client import Client
from playwright.sync_api import Playwright

from tests.e2e.test_gateway_attacks import agent_params
from tests.support.agents import AgentThread, text_of, wait_listed
from tests.support.browser import Extension
from tests.support.gateway_browser import gateway_browser, wait_pending
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).resolve().parent.parent / "host" / "servers" / "tasks_server.py"
TOOL = "mcp__jobs__wait_job"


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jobs-state")


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], state: Path
) -> Iterator[Extension]:
    config = (
        f"[mcp_servers.jobs]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, {json.dumps(str(state))}]\n"
    )
    with gateway_browser(pw, tmp_path_factory.mktemp("tasks-gateway"), host_env, [], config) as ext:
        ext.send({"type": "config/set", "patch": {"mcpTools": True, "gatewayMcp": True}})
        yield ext


@pytest.fixture
def codex(tmp_path: Path) -> StdioServerParameters:
    return agent_params(tmp_path)


def test_an_agent_gets_the_tasks_progress_then_its_result(
    ext: Extension, codex: StdioServerParameters, state: Path
) -> None:
    seen: list[str] = []

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async def body(client: Client, _notices: list[Any]) -> types.CallToolResult:
        await wait_listed(client, lambda names: TOOL in names)
        return await client.call_tool(TOOL, {"label": "agent"}, progress_callback=progressed)

    running = AgentThread(codex, body)
    running.start()
    [request] = wait_pending(ext)
    assert request["tool"] == TOOL
    assert ext.send({"type": "approval/answer", "id": request["id"], "decision": "once"}) == {"ok": True}
    wait_for(lambda: any("working on agent: poll" in m for m in seen), "the task's progress at the agent")
    (state / "release").write_text("")
    result = running.outcome()
    assert result.is_error is False and text_of(result) == "job agent done"
