"""`tabgate-host connect AGENT` run as a person runs it, then the agent's MCP client started from the file it
wrote exactly as that client starts servers (the SDK's default environment: env=None)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.support.agents import params_from_codex, params_from_json, run_agent

pytestmark = pytest.mark.host

CONFIGS = {
    "codex": ".codex/config.toml",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "claude-code": ".claude.json",
    "cursor": ".cursor/mcp.json",
    "gemini": ".gemini/settings.json",
    "opencode": ".config/opencode/opencode.json",
}


def connect(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    overrides = ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME")
    env = {key: value for key, value in os.environ.items() if key not in overrides}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    command = [str(Path(sys.executable).parent / "tabgate-host"), "connect", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


async def initialize_and_list(client: Client, _notices: list[Any]) -> tuple[str, list[types.Tool]]:
    info = client.server_info
    return (info.name if info else ""), (await client.list_tools()).tools


@pytest.mark.parametrize("agent", list(CONFIGS))
def test_the_agent_starts_tabgate_from_the_config_connect_wrote(agent: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = connect(home, agent)
    assert done.returncode == 0, done.stderr
    config = home / CONFIGS[agent]
    assert f"wrote {config}" in done.stdout and "next: " in done.stdout
    text = config.read_text()
    if agent == "opencode":  # `mcp`, the argv in `command`, `environment`: started as the others
        entry = json.loads(text)["mcp"]["tabgate"]
        assert entry["type"] == "local" and "environment" not in entry
        params = StdioServerParameters(command=entry["command"][0], args=entry["command"][1:])
    else:
        entry = tomllib.loads(text)["mcp_servers"] if agent == "codex" else json.loads(text)["mcpServers"]
        assert "env" not in entry["tabgate"]  # the socket is found without one
        params = params_from_codex(text) if agent == "codex" else params_from_json(text)
    assert params.args == ["mcp"]
    assert params.command == str(Path(sys.executable).parent / "tabgate-host")
    name, tools = run_agent(params, initialize_and_list, name=agent)
    # No browser here (or, on a busy machine, one whose gateway answers): the server answered both.
    assert name == "tabgate" and isinstance(tools, list)
