"""Agents that are scripts run by an interpreter (Node with the official TypeScript MCP SDK, Python with the
`mcp` SDK), as Gemini CLI and the MCP Inspector are to the OS: `node <script>`. Each starts `tabgate-host mcp`
as its client does, makes one tool call and prints the result as one JSON line; how it is started (script
path, relative path, inline code, working folder) is up to the test.

The agent reads TG_HOST (the `tabgate-host` to start), TG_NAME (its clientInfo name), TG_CALL (`{name,
arguments}`), TG_SERVER_ENV (extra environment for the server, JSON) and TG_CHDIR (a folder to change to once
started, before `tabgate-host mcp` starts)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.support.npm_packages import CONFORMANCE, installed


def sdk_folder() -> Path:
    """The TypeScript SDK the pinned conformance suite installs with it (its lockfile pins the version)."""
    installed(CONFORMANCE)
    return CONFORMANCE.prefix / "node_modules" / "@modelcontextprotocol" / "sdk"


def node_agent_code() -> str:
    sdk = sdk_folder() / "dist" / "esm" / "client"
    return f"""
import {{ Client }} from {json.dumps((sdk / "index.js").as_uri())};
import {{ StdioClientTransport, getDefaultEnvironment }} from {json.dumps((sdk / "stdio.js").as_uri())};
if (process.env.TG_CHDIR) process.chdir(process.env.TG_CHDIR);
const call = JSON.parse(process.env.TG_CALL);
const env = {{ ...getDefaultEnvironment(), ...JSON.parse(process.env.TG_SERVER_ENV || "{{}}") }};
const transport = new StdioClientTransport({{ command: process.env.TG_HOST, args: ["mcp"], env }});
const client = new Client({{ name: process.env.TG_NAME, version: "1.0.0" }});
await client.connect(transport);
const result = await client.callTool(call, undefined, {{ timeout: 120000 }});
console.log(JSON.stringify(result));
await client.close();
"""


PYTHON_AGENT = """
import anyio, json, os, sys
import mcp_types as types
from mcp import Client, StdioServerParameters

async def main() -> None:
    if os.environ.get("TG_CHDIR"):
        os.chdir(os.environ["TG_CHDIR"])
    call = json.loads(os.environ["TG_CALL"])
    env = json.loads(os.environ.get("TG_SERVER_ENV") or "{}") or None
    params = StdioServerParameters(command=os.environ["TG_HOST"], args=["mcp"], env=env)
    info = types.Implementation(name=os.environ["TG_NAME"], version="1.0.0")
    async with Client(params, mode="legacy", read_timeout_seconds=120, client_info=info) as client:
        result = await client.call_tool(call["name"], call["arguments"])
    print(json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True)))

anyio.run(main)
"""


def write_node_agent(folder: Path, name: str = "agent.mjs") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(node_agent_code())
    return script


def write_python_agent(folder: Path, name: str = "agent.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(PYTHON_AGENT)
    return script


def agent_env(
    host: Path,
    name: str,
    call: dict[str, Any],
    server_env: dict[str, str] | None = None,
    chdir: Path | None = None,
) -> dict[str, str]:
    env = {
        "HOME": os.environ.get("HOME", "/"),
        "PATH": os.environ["PATH"],
        "TG_HOST": str(host),
        "TG_NAME": name,
        "TG_CALL": json.dumps(call),
        "TG_SERVER_ENV": json.dumps(server_env or {}),
    }
    return env | ({"TG_CHDIR": str(chdir)} if chdir is not None else {})


def start_agent(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    """The agent process, running; its one output line is the tool result (`finished`)."""
    return subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(agent: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    out, err = agent.communicate(timeout=timeout)
    assert agent.returncode == 0, f"the agent failed ({agent.returncode}):\n{err[-3000:]}"
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result
