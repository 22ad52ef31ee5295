"""`tabgate-host connect`: where each agent keeps its config, and edits that keep the rest of the file."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest

from native_host.setup.connect import AGENTS, AgentFile, AgentName, host_script, run_connect
from native_host.setup.doctor import check_agent_configs

pytestmark = pytest.mark.unit

HOME = Path("/home/ada")
SCRIPT = str(Path(sys.executable).parent / "tabgate-host")


def connect(file: AgentFile, *, remove: bool = False, show: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_connect(file, remove=remove, show=show, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def at(tmp_path: Path, agent: AgentName, name: str | None = None) -> AgentFile:
    return AgentFile(AGENTS[agent], tmp_path / (name or ("config.toml" if agent == "codex" else "mcp.json")))


@pytest.mark.parametrize(
    ("agent", "platform", "env", "expected"),
    [
        ("codex", "linux", {}, "/home/ada/.codex/config.toml"),
        ("codex", "darwin", {"CODEX_HOME": "/opt/codex"}, "/opt/codex/config.toml"),
        ("claude-desktop", "linux", {}, "/home/ada/.config/Claude/claude_desktop_config.json"),
        ("claude-desktop", "linux", {"XDG_CONFIG_HOME": "/cfg"}, "/cfg/Claude/claude_desktop_config.json"),
        (
            "claude-desktop",
            "darwin",
            {},
            "/home/ada/Library/Application Support/Claude/claude_desktop_config.json",
        ),
        ("claude-code", "linux", {}, "/home/ada/.claude.json"),
        ("claude-code", "darwin", {"CLAUDE_CONFIG_DIR": "/cc"}, "/cc/.claude.json"),
        ("cursor", "darwin", {}, "/home/ada/.cursor/mcp.json"),
        ("gemini", "linux", {}, "/home/ada/.gemini/settings.json"),
        ("gemini", "darwin", {"GEMINI_CLI_HOME": "/g"}, "/g/.gemini/settings.json"),
        ("opencode", "linux", {}, "/home/ada/.config/opencode/opencode.json"),
        ("opencode", "darwin", {"XDG_CONFIG_HOME": "/cfg"}, "/cfg/opencode/opencode.json"),
    ],
)
def test_each_agent_config_is_where_the_agent_reads_it(
    agent: AgentName, platform: str, env: dict[str, str], expected: str
) -> None:
    assert AGENTS[agent].where(platform, HOME, env) == Path(expected)  # type: ignore[arg-type]


def test_the_command_is_this_installs_tabgate_host() -> None:
    assert host_script() == Path(SCRIPT) and os.access(SCRIPT, os.X_OK)


JSON_BEFORE = """\
{
  "numStartups": 3,
  "tips": [1, 2],
  "mcpServers": {
    "other": {"command": "a", "args": []}
  },
  "zeta": "é \\u00e9"
}
"""


def test_json_gains_the_entry_and_keeps_every_other_byte(tmp_path: Path) -> None:
    file = at(tmp_path, "claude-code")
    file.path.write_text(JSON_BEFORE)
    file.path.chmod(0o644)
    code, out, _ = connect(file)
    assert code == 0 and f"wrote {file.path}" in out and "next: start a new Claude Code session" in out
    after = file.path.read_text()
    data = json.loads(after)
    assert list(data) == ["numStartups", "tips", "mcpServers", "zeta"]
    assert data["mcpServers"] == {
        "other": {"command": "a", "args": []},
        "tabgate": {"type": "stdio", "command": SCRIPT, "args": ["mcp"]},
    }
    assert after.startswith('{\n  "numStartups": 3,\n  "tips": [1, 2],\n  "mcpServers": {\n    "other": {')
    assert after.endswith('  },\n  "zeta": "é \\u00e9"\n}\n')
    assert stat.S_IMODE(file.path.stat().st_mode) == 0o644  # the mode is kept
    # Idempotent: a second run changes nothing; --remove gives back the very bytes there were.
    assert connect(file)[1].endswith("nothing to change\n") and file.path.read_text() == after
    assert connect(file, remove=True)[0] == 0
    assert file.path.read_text() == JSON_BEFORE


@pytest.mark.parametrize(
    "before",
    [
        "{}",
        "",
        '{"a": 1}',
        '{"mcpServers": {}}',
        '{\r\n\t"mcpServers": {\r\n\t\t"x": {"command": "y"}\r\n\t}\r\n}\r\n',
        '{"mcpServers": {"tabgate": "junk", "x": {}}, "b": [1]}',
    ],
)
def test_json_layouts_read_back_as_intended_and_remove_cleanly(tmp_path: Path, before: str) -> None:
    file = at(tmp_path, "cursor")
    file.path.write_text(before, newline="")
    assert connect(file)[0] == 0
    after = file.path.read_bytes().decode()
    assert json.loads(after)["mcpServers"]["tabgate"] == {"command": SCRIPT, "args": ["mcp"]}
    if "\r\n" in before:
        assert "\n" not in after.replace("\r\n", "")  # the file's own line endings
    assert connect(file, remove=True)[0] == 0
    removed = json.loads(file.path.read_text())
    assert "tabgate" not in removed.get("mcpServers", {})
    assert {k: v for k, v in removed.items() if k != "mcpServers"} == {
        k: v for k, v in json.loads(before or "{}").items() if k != "mcpServers"
    }


def test_a_stale_entry_is_replaced_its_env_dropped_other_keys_kept(tmp_path: Path) -> None:
    file = at(tmp_path, "claude-desktop")
    stale = {
        "command": "/old/tabgate-host",
        "args": ["x"],
        "env": {"TABGATE_RUNTIME_DIR": "/r"},
        "disabled": False,
    }
    file.path.write_text(json.dumps({"mcpServers": {"tabgate": stale}}, indent=2))
    assert connect(file)[0] == 0
    entry = json.loads(file.path.read_text())["mcpServers"]["tabgate"]
    assert entry == {"command": SCRIPT, "args": ["mcp"], "disabled": False}


@pytest.mark.parametrize(
    ("agent", "text", "problem"),
    [
        ("cursor", '{"mcpServers": {', "is not valid JSON"),
        ("cursor", "[1, 2]", "does not hold a JSON object"),
        ("claude-code", '{"mcpServers": [1]}', "`mcpServers` is not a table of servers"),
        ("codex", "[mcp_servers.tabgate\ncommand = 1", "is not valid TOML"),
        ("codex", "mcp_servers = 3\n", "`mcp_servers` is not a table of servers"),
    ],
)
def test_a_file_that_does_not_parse_is_refused_and_left_alone(
    tmp_path: Path, agent: AgentName, text: str, problem: str
) -> None:
    file = at(tmp_path, agent)
    file.path.write_text(text)
    for remove in (False, True):
        code, out, err = connect(file, remove=remove)
        assert code == 1 and out == "" and str(file.path) in err and problem in err, err
        assert "nothing was changed" in err and file.path.read_text() == text


CODEX_BEFORE = """\
# my codex
model = "o3"  # the best

[mcp_servers.tabgate]
# by hand, last year
command = "/old/bin/tabgate-host"
args = ["mcp"]
tool_timeout_sec = 300

[mcp_servers.tabgate.env]
TABGATE_RUNTIME_DIR = "/tmp/x"

# the notes server
[mcp_servers.notes]
command = "notes"
"""


def test_codex_toml_keeps_comments_and_other_tables(tmp_path: Path) -> None:
    file = at(tmp_path, "codex")
    file.path.write_text(CODEX_BEFORE)
    code, out, _ = connect(file, show=True)
    assert code == 0 and file.path.read_text() == CODEX_BEFORE  # --print writes nothing
    assert f'+command = "{SCRIPT}"' in out and '-TABGATE_RUNTIME_DIR = "/tmp/x"' in out
    assert connect(file)[0] == 0
    after = file.path.read_text()
    assert after == CODEX_BEFORE.replace("/old/bin/tabgate-host", SCRIPT).replace(
        '[mcp_servers.tabgate.env]\nTABGATE_RUNTIME_DIR = "/tmp/x"\n\n', ""
    ).replace("tool_timeout_sec = 300\n", "tool_timeout_sec = 300\nrequired = true\n")
    assert tomllib.loads(after)["mcp_servers"]["tabgate"] == {
        "command": SCRIPT,
        "args": ["mcp"],
        "tool_timeout_sec": 300,
        "required": True,  # codex waits for Tabgate's tools before its first request
    }
    assert connect(file, remove=True)[0] == 0
    assert file.path.read_text() == '# my codex\nmodel = "o3"  # the best\n\n# the notes server\n' + (
        '[mcp_servers.notes]\ncommand = "notes"\n'
    )
    # Added to a file without it, then removed: the file is as it was, byte for byte.
    before = file.path.read_text()
    assert connect(file)[0] == 0 and connect(file, remove=True)[0] == 0
    assert file.path.read_text() == before


def test_codex_inline_env_goes_and_a_crlf_file_stays_crlf(tmp_path: Path) -> None:
    file = at(tmp_path, "codex")
    before = (
        '[mcp_servers.tabgate]\r\ncommand = "/x"\r\nargs = []\r\nenv = { TABGATE_RUNTIME_DIR = "/r" }\r\n'
    )
    file.path.write_bytes(before.encode())
    assert connect(file)[0] == 0
    assert (
        file.path.read_bytes().decode()
        == f'[mcp_servers.tabgate]\r\ncommand = "{SCRIPT}"\r\nargs = ["mcp"]\r\nrequired = true\r\n'
    )


def test_a_new_file_is_the_owners_only_and_remove_without_a_file_writes_nothing(tmp_path: Path) -> None:
    file = AgentFile(AGENTS["codex"], tmp_path / "fresh" / "config.toml")
    assert connect(file, remove=True) == (0, f"{file.path} has no tabgate entry: nothing to change\n", "")
    assert not file.path.parent.exists()
    assert connect(file)[0] == 0
    assert stat.S_IMODE(file.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(file.path.parent.stat().st_mode) == 0o700


def test_a_symlinked_config_is_written_through_to_its_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text('{"mcpServers": {}}\n')
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    assert connect(AgentFile(AGENTS["cursor"], link))[0] == 0
    assert link.is_symlink() and link.resolve() == target
    assert json.loads(target.read_text())["mcpServers"]["tabgate"]["command"] == SCRIPT


def test_doctor_checks_each_agent_config_that_names_tabgate(tmp_path: Path) -> None:
    files = {name: AgentFile(agent, tmp_path / name / "config") for name, agent in AGENTS.items()}
    for file in files.values():
        file.path.parent.mkdir()
    files["codex"].path.write_text(
        '[mcp_servers.tabgate]\ncommand = "/gone/.venv/bin/tabgate-host"\nargs = ["mcp"]\n'
        'env = { TABGATE_RUNTIME_DIR = "/run/x" }\n'
    )
    assert connect(files["claude-code"])[0] == 0
    files["cursor"].path.write_text('{"mcpServers": {"tabgate": ')
    other = tmp_path / "other-install" / "tabgate-host"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    browser = {"command": str(other), "args": ["serve"]}
    files["claude-desktop"].path.write_text(
        json.dumps({"mcpServers": {"browser": browser, "x": {"command": "y"}}})
    )

    findings = check_agent_configs(list(files.values()), Path(SCRIPT))
    report = "\n".join(finding.render() for finding in findings)
    assert [finding.ok for finding in findings] == [False, False, True, False], report
    codex, desktop, code, cursor = findings
    assert "/gone/.venv/bin/tabgate-host" in codex.what and "which does not exist" in codex.what
    assert "sets TABGATE_RUNTIME_DIR" in codex.what and codex.fix == "run: tabgate-host connect codex"
    assert f"runs {other}, another install than this one ({SCRIPT})" in desktop.what
    assert "passes ['serve']" in desktop.what and "remove 'browser' from" in desktop.fix
    assert "runs this install's tabgate-host mcp" in code.what
    assert str(files["cursor"].path) in cursor.what and "is not valid JSON" in cursor.what
    # Nothing names Tabgate (or no config at all): said once, as information, not a problem.
    for file in files.values():
        file.path.unlink(missing_ok=True)
    (nothing,) = check_agent_configs(list(files.values()), Path(SCRIPT))
    names = "codex|claude-desktop|claude-code|cursor|gemini|opencode"
    assert nothing.ok and f"tabgate-host connect {names}" in nothing.what
