"""The real agent CLIs (pinned in tests/support/npm_packages.py), each set up in a home of its own with
Tabgate added by `tabgate-host connect <client>` (that file is not touched afterwards), pointed at a scripted
model (tests/support/scripted_model.py) and run non-interactively with one prompt."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from native_host.setup.connect import AGENTS, AgentFile
from tests.support.model_apis import ChatCompletions, Gemini, Messages, Responses
from tests.support.npm_packages import (
    CLAUDE_CODE,
    CODEX,
    GEMINI_CLI,
    INSPECTOR,
    NODE_22,
    OPENCODE,
    installed,
    node_path,
)
from tests.support.scripted_model import ModelApi

PROMPT: Final = "Use the browser tools as the script says."
RUN_SECONDS: Final = 150  # a client still running after this is stopped and the test fails
# Updates, telemetry and relaunches off: the run talks to nothing but the scripted model and Tabgate.
QUIET: Final = {
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "GEMINI_CLI_NO_RELAUNCH": "true",
    "NO_UPDATE_NOTIFIER": "1",
    "NO_COLOR": "1",
}


@dataclass(frozen=True)
class Run:
    argv: list[str]
    env: dict[str, str]  # beside HOME, PATH, USER, LANG and QUIET


@dataclass(frozen=True)
class AgentCli:
    name: str  # as `tabgate-host connect` knows it
    api: ModelApi
    command: Callable[[Path, str, Path], Run]  # (home, model origin, working folder) → how to run it
    executable: Callable[[], str]  # the program that starts `tabgate-host mcp`, as the OS reports it

    def run(self, home: Path, model: str, prompt: str = PROMPT) -> subprocess.Popen[str]:
        """Start the client in `home` (working folder `home/work`) with one prompt, its output to a file."""
        work = home / "work"
        work.mkdir(exist_ok=True)
        how = self.command(home, model, work)
        env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "USER": os.environ.get("USER", "root"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            **QUIET,
            **how.env,
        }
        with (home / f"{self.name}.out").open("w") as out:  # the child keeps its own copy open
            return subprocess.Popen(
                [*how.argv, prompt],
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                text=True,
            )


def _codex(home: Path, model: str, _work: Path) -> Run:
    # The provider comes as `-c` overrides, so ~/.codex/config.toml stays what `connect` wrote.
    provider = f'{{name="scripted", base_url="{model}/v1", wire_api="responses", env_key="SCRIPTED_KEY", ' + (
        "request_max_retries=0, stream_max_retries=0}"
    )
    # No override of the tabgate entry: codex waits for Tabgate's tools because `connect` wrote `required`.
    overrides = [
        "model_provider=scripted",
        f"model_providers.scripted={provider}",
        "model=scripted",
    ]
    argv = [node_path(), str(installed(CODEX)), *[x for o in overrides for x in ("-c", o)]]
    exec_ = ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
    return Run([*argv, *exec_], {"SCRIPTED_KEY": "scripted"})


def _codex_binary() -> str:
    found = sorted(CODEX.prefix.glob("node_modules/@openai/codex-*/vendor/*/bin/codex"))
    assert found, f"codex's native binary is not under {CODEX.prefix}"
    return str(found[0].resolve())


def _claude(home: Path, model: str, _work: Path) -> Run:
    argv = [
        str(installed(CLAUDE_CODE)),
        "-p",
        "--allowedTools",
        "mcp__tabgate",
        "--model",
        "claude-sonnet-4-5",
    ]
    # Tool search off: Claude Code would otherwise offer MCP tools only through its ToolSearch tool.
    env = {"ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "scripted", "ENABLE_TOOL_SEARCH": "false"}
    return Run(argv, env)


def _gemini(home: Path, model: str, work: Path) -> Run:
    # Trusting the working folder and the API-key sign-in (which GOOGLE_GEMINI_BASE_URL alone does not choose)
    # are files of their own, the latter the workspace's settings, so ~/.gemini/settings.json stays what
    # `connect` wrote (Gemini CLI skips system settings under a world-writable folder such as /var/tmp).
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini/trustedFolders.json").write_text(json.dumps({str(work): "TRUST_FOLDER"}))
    (work / ".gemini").mkdir(exist_ok=True)
    sign_in = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (work / ".gemini/settings.json").write_text(json.dumps(sign_in))
    argv = [node_path(), str(installed(GEMINI_CLI)), "--yolo", "--model", "gemini-2.5-flash", "-p"]
    return Run(argv, {"GOOGLE_GEMINI_BASE_URL": model, "GEMINI_API_KEY": "scripted"})


def _opencode(home: Path, model: str, _work: Path) -> Run:
    # The provider comes through OPENCODE_CONFIG_CONTENT, so opencode.json stays what `connect` wrote.
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "scripted",
        "options": {"baseURL": f"{model}/v1", "apiKey": "scripted"},
        "models": {"scripted": {"name": "scripted", "tool_call": True}},
    }
    content = {"provider": {"scripted": provider}, "model": "scripted/scripted", "share": "disabled"}
    argv = [str(installed(OPENCODE)), "run", "-m", "scripted/scripted"]
    return Run(argv, {"OPENCODE_CONFIG_CONTENT": json.dumps(content)})


CLIENTS: Final = {
    "codex": AgentCli("codex", Responses(), _codex, _codex_binary),
    "claude-code": AgentCli(
        "claude-code", Messages(), _claude, lambda: str(installed(CLAUDE_CODE).resolve())
    ),
    "gemini": AgentCli("gemini", Gemini(), _gemini, lambda: os.path.realpath(node_path())),
    "opencode": AgentCli(
        "opencode", ChatCompletions(), _opencode, lambda: str(installed(OPENCODE).resolve())
    ),
}


def inspector(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The MCP Inspector's CLI on this install's `tabgate-host mcp` (on Node 22: it needs ≥ 22.19)."""
    host = str(Path(sys.executable).parent / "tabgate-host")
    argv = [str(installed(NODE_22)), str(installed(INSPECTOR)), "--cli", host, "mcp", *args]
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", **QUIET}
    return subprocess.run(argv, cwd=home, env=env, capture_output=True, text=True, timeout=RUN_SECONDS)


def connect(home: Path, client: str) -> Path:
    """`tabgate-host connect <client>` run as the person runs it, in `home`; returns the file it wrote."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")
    }
    env["HOME"] = str(home)
    command = [str(Path(sys.executable).parent / "tabgate-host"), "connect", client]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    written = done.stdout.split("wrote ", 1)[1].split(":", 1)[0]
    return Path(written)


@contextmanager
def client_home(client: str) -> Iterator[tuple[Path, AgentFile]]:
    """A home under /var/tmp (codex warns about one under /tmp) with Tabgate added by `connect`; yields the
    home and the file `connect` wrote."""
    home = Path(tempfile.mkdtemp(prefix=f"tabgate-{client}-", dir="/var/tmp"))
    try:
        yield home, AgentFile(AGENTS[client], connect(home, client))  # type: ignore[index]
    finally:
        shutil.rmtree(home, ignore_errors=True)


def finish(process: subprocess.Popen[str], home: Path, name: str, seconds: float = RUN_SECONDS) -> str:
    """Wait for the client to exit (stopping it after `seconds`); its output, for failure messages."""
    deadline = time.monotonic() + seconds
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if process.poll() is None:
        process.kill()
        process.wait()
    return (home / f"{name}.out").read_text(errors="replace")[-4000:]
