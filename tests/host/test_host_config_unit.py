"""The host config (contract §3): codex keys, transport inference, every problem named; import; redaction."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from native_host.config import load_config, write_default_config
from native_host.config_cli import redacted
from native_host.importer import merge_into, read_servers, render_tables
from native_host.preview import preview_statuses
from native_host.redact import REDACTED, Scrubber, redact_url

pytestmark = pytest.mark.unit


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_codex_keys_and_transport_inference(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[mcp_servers.local]
command = "npx"
args = ["-y", "pkg"]
env = { KEY = "value" }
env_vars = ["HOME_TOKEN"]
cwd = "/tmp"
startup_timeout_ms = 2500
tool_timeout_sec = 1.5
enabled_tools = ["a", "b"]
disabled_tools = ["b"]
supports_parallel_tool_calls = true

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "TOKEN"
http_headers = { X-Team = "blue" }
env_http_headers = { X-Key = "KEY_VAR" }
handshake = "auto"
required = true

[mcp_servers.legacy]
url = "http://127.0.0.1:3000/sse"
transport = "sse"
enabled = false
""",
    )
    loaded = load_config(path)
    assert loaded.problems == []
    local, remote, legacy = loaded.servers["local"], loaded.servers["remote"], loaded.servers["legacy"]
    assert (local.transport, remote.transport, legacy.transport) == ("stdio", "streamable_http", "sse")
    assert local.startup_timeout_sec == 2.5 and local.tool_timeout_sec == 1.5
    assert local.allows_tool("a") and not local.allows_tool("b") and not local.allows_tool("c")
    assert remote.handshake == "auto" and remote.required and remote.startup_timeout_sec == 10
    assert legacy.enabled is False
    assert [s["transport"] for s in preview_statuses(path)] == ["stdio", "streamable_http", "sse"]


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        ('command = "x"\nurl = "http://h/mcp"', None, "`url` is not supported for stdio"),
        ('url = "http://h/mcp"\nargs = ["a"]', None, "`args` is not supported for streamable_http"),
        (
            'command = "x"\nbearer_token_env_var = "T"',
            None,
            "`bearer_token_env_var` is not supported for stdio",
        ),
        ('transport = "sse"\ncommand = "x"', None, "transport 'sse' needs `url`"),
        ("enabled = true", None, "needs `command`"),
        ('comand = "x"', "comand", "unknown key"),
        ('command = "x"\ntool_timeout_sec = 0', "tool_timeout_sec", "greater than 0"),
        ('command = "x"\nstartup_timeout_sec = 1\nstartup_timeout_ms = 5', None, "not both"),
        ('command = "x"\nargs = "not-a-list"', "args", "valid list"),
        ('url = "ftp://h"', "url", "should match"),
        ('url = "http://h/mcp"\nbearer_token = "secret"', "bearer_token", "bearer_token_env_var"),
    ],
)
def test_each_problem_names_file_server_and_key(
    tmp_path: Path, table: str, key: str | None, message: str
) -> None:
    path = write(tmp_path, f'[mcp_servers.good]\ncommand = "ok"\n\n[mcp_servers.bad]\n{table}\n')
    loaded = load_config(path)
    assert list(loaded.servers) == ["good"]  # the valid server is kept, the bad one is never half-applied
    assert "bad" in loaded.invalid
    [problem] = loaded.problems
    assert (problem.file, problem.server) == (path, "bad")
    assert problem.key == key
    assert message in problem.message
    assert str(problem).startswith(f"{path}: [mcp_servers.bad]")
    assert "secret" not in str(problem)


def test_bad_names_broken_toml_and_missing_file(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, '[mcp_servers."has space"]\ncommand = "x"\n'))
    assert loaded.servers == {} and "letters, digits" in loaded.problems[0].message
    broken = load_config(write(tmp_path, "[mcp_servers.x\n", "broken.toml"))
    assert "not valid TOML" in broken.problems[0].message
    missing = load_config(tmp_path / "absent.toml")
    assert (missing.exists, missing.servers, missing.problems) == (False, {}, [])


def test_default_config_runs_the_notes_server(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "config.toml"
    assert write_default_config(path, "/abs/python")
    assert not write_default_config(path, "/other")  # an existing config is never replaced
    notes = load_config(path).servers["notes"]
    assert notes.command == "/abs/python" and notes.args == ("-P", "-m", "native_host.notes_server")


def test_redaction_in_show_and_scrubbing() -> None:
    loaded_text = """
[mcp_servers.api]
url = "https://user:pw@example.com/mcp?token=abc123&x=1"
http_headers = { Authorization = "Bearer sekrit" }
[mcp_servers.tool]
command = "x"
env = { API_KEY = "hunter22" }
"""
    path = Path("/nonexistent")
    from native_host.config import LoadedConfig, parse_servers

    loaded = LoadedConfig(path, exists=True)
    parse_servers(path, tomllib.loads(loaded_text)["mcp_servers"], loaded)
    shown = render_tables({name: redacted(server) for name, server in loaded.servers.items()})
    for secret in ("pw", "abc123", "sekrit", "hunter22"):
        assert secret not in shown
    assert "API_KEY" in shown and "Authorization" in shown and REDACTED in shown
    assert tomllib.loads(shown)["mcp_servers"]["tool"]["env"] == {"API_KEY": REDACTED}
    assert redact_url("https://a:b@h/p?q=1") == f"https://a:{REDACTED}@h/p?q={REDACTED}"
    scrub = Scrubber(["hunter22", "ab"], ["https://h/p?token=zz"])
    assert (
        scrub("key hunter22 at https://h/p?token=zz; ab")
        == f"key {REDACTED} at https://h/p?token={REDACTED}; ab"
    )


def test_import_claude_desktop_json_and_codex_toml(tmp_path: Path) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {
                        "command": "npx",
                        "args": ["-y", "server-filesystem", "/tmp"],
                        "env": {"A": "1"},
                    },
                    "remote.api": {"type": "http", "url": "https://h/mcp", "headers": {"X": "y"}},
                    "old": {"type": "sse", "url": "https://h/sse", "disabled": True, "autoApprove": ["x"]},
                    "broken": {"args": ["no command"]},
                }
            }
        )
    )
    found = read_servers(claude)
    assert sorted(found.tables) == ["files", "old", "remote_api"]
    assert found.tables["old"] == {"transport": "sse", "url": "https://h/sse", "enabled": False}
    assert found.tables["remote_api"]["http_headers"] == {"X": "y"}
    assert any("renamed 'remote.api'" in note for note in found.notes)
    assert any("autoApprove" in note for note in found.notes)
    assert [p.server for p in found.problems] == ["broken"]

    config = tmp_path / "config.toml"
    config.write_text('# mine\n[mcp_servers.files]\ncommand = "keep-me"\n')
    added, skipped = merge_into(config, found.tables)
    assert (sorted(added), skipped) == (["old", "remote_api"], ["files"])
    merged = load_config(config)
    assert merged.problems == [] and merged.servers["files"].command == "keep-me"
    assert merged.servers["remote_api"].transport == "streamable_http"
    assert config.read_text().startswith("# mine\n")
    assert config.stat().st_mode & 0o077 == 0

    codex = write(
        tmp_path,
        '[model]\nname = "x"\n[mcp_servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\n',
        "codex.toml",
    )
    assert read_servers(codex).tables == {"time": {"command": "uvx", "args": ["mcp-server-time"]}}
