"""`tabgate-host connect gemini|opencode`: their own shapes (Gemini CLI's `mcpServers`, opencode's `mcp` with
a `local` argv), the rest of the file kept byte for byte, and their JSON with comments read, never edited."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from native_host.setup.connect import AGENTS, AgentFile, run_connect
from native_host.setup.doctor import check_agent_configs

pytestmark = pytest.mark.unit

SCRIPT = str(Path(sys.executable).parent / "tabgate-host")


def connect(file: AgentFile, *, remove: bool = False, show: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_connect(file, remove=remove, show=show, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


GEMINI_BEFORE = """\
{
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "ui": {
        "theme": "GitHub"
    }
}
"""

OPENCODE_BEFORE = """\
{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "tabgate": {
      "type": "local",
      "command": ["/old/.venv/bin/tabgate-host", "mcp"],
      "environment": {"TABGATE_RUNTIME_DIR": "/run/x"},
      "timeout": 9000
    }
  },
  "provider": {"x": {"npm": "@ai-sdk/openai-compatible"}}
}
"""


def test_gemini_gains_an_mcp_servers_entry_and_keeps_every_other_byte(tmp_path: Path) -> None:
    file = AgentFile(AGENTS["gemini"], tmp_path / ".gemini" / "settings.json")
    file.path.parent.mkdir()
    file.path.write_text(GEMINI_BEFORE)
    code, out, _ = connect(file)
    assert code == 0 and "next: start a new Gemini CLI session in a folder you trust" in out
    after = file.path.read_text()
    assert json.loads(after)["mcpServers"] == {"tabgate": {"command": SCRIPT, "args": ["mcp"]}}
    assert after.startswith(GEMINI_BEFORE[: GEMINI_BEFORE.rindex("\n}")])  # four-space layout kept
    assert f'\n    "mcpServers": {{\n        "tabgate": {{\n            "command": "{SCRIPT}"' in after
    assert connect(file)[1].endswith("nothing to change\n")
    assert connect(file, remove=True)[0] == 0
    assert json.loads(file.path.read_text()) == {**json.loads(GEMINI_BEFORE), "mcpServers": {}}


def test_opencode_gets_a_local_argv_its_environment_dropped_its_other_keys_kept(tmp_path: Path) -> None:
    file = AgentFile(AGENTS["opencode"], tmp_path / "opencode.json")
    file.path.write_text(OPENCODE_BEFORE)
    assert connect(file)[0] == 0
    after = file.path.read_text()
    assert json.loads(after)["mcp"]["tabgate"] == {
        "type": "local",
        "command": [SCRIPT, "mcp"],
        "timeout": 9000,
    }
    assert after.startswith('{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "tabgate": ')
    assert after.endswith('  },\n  "provider": {"x": {"npm": "@ai-sdk/openai-compatible"}}\n}\n')
    assert connect(file, remove=True)[0] == 0
    removed = file.path.read_text()
    assert json.loads(removed) == {**json.loads(OPENCODE_BEFORE), "mcp": {}}
    # Added to a file without it, then removed again: byte for byte what there was.
    assert connect(file)[0] == 0 and connect(file, remove=True)[0] == 0
    assert file.path.read_text() == removed


def test_a_new_opencode_config_is_what_opencode_mcp_add_writes(tmp_path: Path) -> None:
    file = AgentFile(AGENTS["opencode"], tmp_path / "opencode" / "opencode.json")
    assert connect(file)[0] == 0
    assert json.loads(file.path.read_text()) == {
        "mcp": {"tabgate": {"type": "local", "command": [SCRIPT, "mcp"]}}
    }


COMMENTED = """\
{
  // mine
  "mcpServers": {"tabgate": {"command": "/old/tabgate-host", "args": ["mcp"],},},
}
"""


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_json_with_comments_is_read_never_edited_and_the_entry_is_shown(tmp_path: Path, agent: str) -> None:
    agent_ = AGENTS[agent]  # type: ignore[index]
    file = AgentFile(agent_, tmp_path / "settings.json")
    file.path.write_text(COMMENTED.replace("mcpServers", agent_.servers_key))
    for remove in (False, True):
        code, out, err = connect(file, remove=remove)
        assert code == 1 and out == "" and "has comments, which Tabgate does not edit" in err, err
        assert file.path.read_text() == COMMENTED.replace("mcpServers", agent_.servers_key)
    assert f'"{SCRIPT}"' in connect(file)[2]  # the entry to add by hand
    (finding,) = check_agent_configs([file], Path(SCRIPT))  # doctor reads it as the agent does
    assert not finding.ok and "/old/tabgate-host" in finding.what and "does not exist" in finding.what


def test_doctor_finds_opencodes_stale_argv_and_environment(tmp_path: Path) -> None:
    file = AgentFile(AGENTS["opencode"], tmp_path / "opencode.json")
    file.path.write_text(OPENCODE_BEFORE)
    (stale,) = check_agent_configs([file], Path(SCRIPT))
    assert not stale.ok and stale.fix == "run: tabgate-host connect opencode"
    assert "/old/.venv/bin/tabgate-host" in stale.what and "sets TABGATE_RUNTIME_DIR" in stale.what
    assert connect(file)[0] == 0
    (fixed,) = check_agent_configs([file], Path(SCRIPT))
    assert fixed.ok and "runs this install's tabgate-host mcp" in fixed.what
