"""The host config (contract §3): codex keys, transport inference, every problem named; import; redaction."""

from __future__ import annotations

import io
import json
import stat
import tomllib
from pathlib import Path

import pytest

from native_host.config.files import FileWriteError, write_atomically
from native_host.config.loading import load_config, write_default_config
from native_host.config.preview import preview_statuses
from native_host.config.redact import REDACTED, Scrubber, redact_url
from native_host.config.secret_args import redact_args
from native_host.config.writing import render_servers
from native_host.setup.config_cli import config_import, config_show, redacted
from native_host.setup.importer import merge_into, read_servers

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
        ('command = "x"\nurl = "http://h/mcp"', "url", "`url` is not supported for stdio"),
        ('url = "http://h/mcp"\nargs = ["a"]', "args", "`args` is not supported for streamable_http"),
        (
            'command = "x"\nbearer_token_env_var = "T"',
            "bearer_token_env_var",
            "`bearer_token_env_var` is not supported for stdio",
        ),
        ('transport = "sse"\nenabled = true', "url", "transport 'sse' needs `url`"),
        ("enabled = true", "command", "needs `command`"),
        ('comand = "x"', "comand", "unknown key"),
        ('command = "x"\ntool_timeout_sec = 0', "tool_timeout_sec", "greater than 0"),
        ('command = "x"\nstartup_timeout_sec = 1\nstartup_timeout_ms = 5', "startup_timeout_ms", "not both"),
        ('command = "x"\nargs = "not-a-list"', "args", "must be a list, not a string"),
        ('url = "ftp://h"', "url", "should match"),
        ('url = "http://h/mcp"\nbearer_token = "secret"', "bearer_token", "bearer_token_env_var"),
        # Strict types: nothing is coerced.
        (
            'command = "x"\nstartup_timeout_sec = "10"',
            "startup_timeout_sec",
            "must be a number, not a string",
        ),
        ('command = "x"\ntool_timeout_sec = true', "tool_timeout_sec", "must be a number, not a boolean"),
        ("command = 1", "command", "must be a string, not an integer"),
        ('command = "x"\nargs = ["a", 1]', "args.1", "must be a string, not an integer"),
        ('command = "x"\nenv = { A = 1 }', "env.A", "must be a string, not an integer"),
        ('command = "x"\nenabled = 1', "enabled", "must be true or false, not an integer"),
        ('command = "x"\nenabled = "false"', "enabled", "must be true or false, not a string"),
        ('command = "x"\nstartup_timeout_ms = 2.5', "startup_timeout_ms", "must be an integer, not a float"),
        ('command = "x"\nenabled_tools = "a"', "enabled_tools", "must be a list, not a string"),
        ('command = "x"\nenv = ["A=1"]', "env", "must be a table, not a list"),
        # Time limits: numbers > 0 and at most one day.
        ('command = "x"\nstartup_timeout_sec = 1e308', "startup_timeout_sec", "at most 86400"),
        ('command = "x"\ntool_timeout_sec = 86400.5', "tool_timeout_sec", "at most 86400"),
        ('command = "x"\ntool_timeout_sec = inf', "tool_timeout_sec", "finite"),
        ('command = "x"\ntool_timeout_sec = nan', "tool_timeout_sec", "finite"),
        ('command = "x"\nstartup_timeout_ms = 86400001', "startup_timeout_ms", "at most 86400000"),
        ('command = "x"\nstartup_timeout_sec = -1', "startup_timeout_sec", "greater than 0"),
        # What no process can be given.
        ('command = "x"\nargs = ["a\\u0000b"]', "args.0", "NUL"),
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
    assert str(problem).startswith(f"{path}: [mcp_servers.bad] {key}: ")
    assert "secret" not in str(problem)


def test_time_limits_at_their_bounds_are_accepted(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[mcp_servers.a]\ncommand = "x"\nstartup_timeout_sec = 86400\ntool_timeout_sec = 0.001\n'
        '[mcp_servers.b]\ncommand = "x"\nstartup_timeout_ms = 86400000\ntool_timeout_sec = 5\n',
    )
    loaded = load_config(path)
    assert loaded.problems == []
    assert (loaded.servers["a"].startup_timeout_sec, loaded.servers["a"].tool_timeout_sec) == (86400, 0.001)
    assert loaded.servers["b"].startup_timeout_sec == 86400 and loaded.servers["b"].tool_timeout_sec == 5.0


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
    from native_host.config.loading import LoadedConfig, parse_servers

    loaded = LoadedConfig(path, exists=True)
    parse_servers(path, tomllib.loads(loaded_text)["mcp_servers"], loaded)
    shown = render_servers({name: redacted(server) for name, server in loaded.servers.items()})
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
                    "typed": {"command": "x", "env": {"PORT": 8080}},
                    "half_off": {"command": "x", "disabled": "yes"},
                    "socket": {"type": "websocket", "url": "wss://h/mcp"},
                    "nulls": {"command": "x", "cwd": None, "env": None},
                }
            }
        )
    )
    found = read_servers(claude)
    assert sorted(found.tables) == ["files", "nulls", "old", "remote_api"]
    assert found.tables["nulls"] == {"command": "x"}  # JSON null means "not set"
    assert found.tables["old"] == {"transport": "sse", "url": "https://h/sse", "enabled": False}
    assert found.tables["remote_api"]["http_headers"] == {"X": "y"}
    assert any("renamed 'remote.api'" in note for note in found.notes)
    assert any("autoApprove" in note for note in found.notes)
    problems = {(p.server, p.key): p.message for p in found.problems}
    assert sorted(problems) == [
        ("broken", "command"),
        ("half_off", "disabled"),
        ("socket", "type"),
        ("typed", "env.PORT"),
    ]
    assert "must be true or false, not a string" in problems["half_off", "disabled"]
    assert "'websocket'" in problems["socket", "type"]
    assert "must be a string, not an integer" in problems["typed", "env.PORT"]

    config = tmp_path / "config.toml"
    config.write_text('# mine\n[mcp_servers.files]\ncommand = "keep-me"\n')
    merged_names = merge_into(config, found.tables)
    assert sorted(merged_names.added) == ["nulls", "old", "remote_api"]
    assert merged_names.conflicts == ["files"] and merged_names.unchanged == []
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
    strict = write(
        tmp_path,
        '[mcp_servers.slow]\ncommand = "uvx"\nstartup_timeout_sec = "10"\n'
        '[mcp_servers.fine]\ncommand = "uvx"\ntool_timeout_sec = 120\n',
        "codex-strict.toml",
    )
    checked = read_servers(strict)
    assert list(checked.tables) == ["fine"]
    [problem] = checked.problems
    assert str(problem) == f"{strict}: [mcp_servers.slow] startup_timeout_sec: must be a number, not a string"


SECRET_ARGS = [
    ("--api-key=sk-live-123", "--api-key=[redacted]"),
    ("--token", "--token"),
    ("tok456", "[redacted]"),  # the value after a secret flag
    ("--password=pw789", "--password=[redacted]"),
    ("-H", "-H"),
    ("Authorization: Bearer hdr000", "Authorization: [redacted]"),
    ("--header=X-Api-Key: hk111", "--header=X-Api-Key: [redacted]"),
    ("-e", "-e"),
    ("GITHUB_TOKEN=ghp_abcdefghijklmnop", "GITHUB_TOKEN=[redacted]"),
    ("https://user:upw222@h/p?key=q333", "https://user:[redacted]@h/p?key=[redacted]"),
    ("ghp_0123456789abcdefghij", "[redacted]"),  # a token on its own, recognised by its prefix
    ("--client-secret", "--client-secret"),
    ("cs444", "[redacted]"),
    ("--verbose", "--verbose"),
    ("--port", "--port"),
    ("8080", "8080"),
    ("/srv/data", "/srv/data"),
]


def test_secret_looking_args_are_redacted() -> None:
    args = [raw for raw, _ in SECRET_ARGS]
    assert redact_args(args) == [shown for _, shown in SECRET_ARGS]


def test_config_show_hides_every_secret_value(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# a comment with notes\n"
        "[mcp_servers.api]\n"
        'url = "https://user:pw1111@example.com/mcp?token=abc1111&x=1"\n'
        'http_headers = { Authorization = "Bearer sek1111" }\n'
        'env_http_headers = { X-Key = "KEY_VAR" }\n'
        'bearer_token_env_var = "TOKEN_VAR"\n'
        "[mcp_servers.tool]\n"
        'command = "npx"\n'
        'args = ["-y", "pkg", "--api-key=sk-2222", "--token", "tok2222", "Authorization: Bearer hd2222"]\n'
        'env = { API_KEY = "hunter2222", PLAIN = "also hidden" }\n',
    )
    out = io.StringIO()
    assert config_show(path, out=out) == 0
    shown = out.getvalue()
    for secret in (
        "pw1111",
        "abc1111",
        "sek1111",
        "sk-2222",
        "tok2222",
        "hd2222",
        "hunter2222",
        "also hidden",
    ):
        assert secret not in shown, secret
    assert f"values are hidden ({REDACTED})" in shown
    assert shown.startswith(f"# {path}\n")
    data = tomllib.loads(shown)["mcp_servers"]
    assert data["tool"]["env"] == {"API_KEY": REDACTED, "PLAIN": REDACTED}
    assert data["tool"]["args"] == [
        "-y",
        "pkg",
        f"--api-key={REDACTED}",
        "--token",
        REDACTED,
        f"Authorization: {REDACTED}",
    ]
    assert data["api"]["env_http_headers"] == {"X-Key": "KEY_VAR"}  # names of variables, not values
    assert data["api"]["bearer_token_env_var"] == "TOKEN_VAR"


# --- writing the config: the import reproductions of issue 9, atomicity, comments, modes ---

USER_CONFIG = (
    "# my servers, by hand\n"
    "[mcp_servers.old]  # keep this one\n"
    'command = "keep"\n'
    "args = ['literal', \"x\"]   # odd spacing kept\n"
    "\n"
    "# a table of my own after the servers\n"
    "[profile]\n"
    'theme = "dark"\n'
)


def import_json(tmp_path: Path, servers: dict[str, object], config: Path) -> tuple[int, str]:
    """Run `config import` on a Claude Desktop style file; (exit code, what it printed)."""
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": servers}))
    out = io.StringIO()
    code = config_import(source, config, out=out)
    return code, out.getvalue()


def test_import_of_a_lone_surrogate_is_refused_and_the_config_is_untouched(tmp_path: Path) -> None:
    config = write(tmp_path, USER_CONFIG)
    code, said = import_json(
        tmp_path, {"bad": {"command": "x", "args": ["ok", "\ud800"]}, "good": {"command": "y"}}, config
    )
    assert code == 1
    assert "[mcp_servers.bad] args.1: " in said and "U+D800" in said  # server and key named
    assert "added: good" in said
    text = config.read_text(encoding="utf-8")
    assert text.startswith(USER_CONFIG)  # the user's bytes come first, unchanged
    assert sorted(load_config(config).servers) == ["good", "old"]


def test_import_of_a_control_character_is_escaped_and_the_config_stays_valid(tmp_path: Path) -> None:
    config = write(tmp_path, USER_CONFIG)
    odd = 'a\x7fb\x01c\x1bd\u2028e"f\\g\nh'
    code, said = import_json(
        tmp_path, {"del": {"command": "x", "args": [odd], "env": {"K\x7f": odd}}}, config
    )
    assert code == 0, said
    loaded = load_config(config)
    assert loaded.problems == [] and sorted(loaded.servers) == ["del", "old"]
    assert loaded.servers["del"].args == (odd,) and loaded.servers["del"].env == {"K\x7f": odd}
    assert "\x7f" not in config.read_text(encoding="utf-8")  # written as \u007f, as TOML requires
    assert config.read_text(encoding="utf-8").startswith(USER_CONFIG)


def test_import_keeps_comments_and_formatting_of_every_layout(tmp_path: Path) -> None:
    layouts = {
        "no-trailing-newline": '[mcp_servers.old]\ncommand = "keep"  # c',
        "crlf": '# c\r\n[mcp_servers.old]\r\ncommand = "keep"\r\n',
        "header": '[mcp_servers]\n# all my servers\n\n[mcp_servers.old]\ncommand = "keep"\n',
        "comments-only": "# nothing yet\n",
        "empty": "",
    }
    for name, text in layouts.items():
        config = tmp_path / f"{name}.toml"
        config.write_bytes(text.encode())
        code, said = import_json(tmp_path, {"new": {"command": "n", "env": {"A": "1"}}}, config)
        assert code == 0, (name, said)
        after = config.read_bytes().decode()
        assert after.startswith(text), name
        assert load_config(config).servers["new"].env == {"A": "1"}, name
        if "\r\n" in text:
            assert "\n" not in after.replace("\r\n", ""), "the new lines follow the file's line endings"


def test_import_into_an_inline_or_broken_config_is_refused_untouched(tmp_path: Path) -> None:
    for text, reason in (
        ('mcp_servers = { old = { command = "x" } }\n', "[mcp_servers.<name>]"),
        ("[mcp_servers.old\n", "not valid TOML"),
    ):
        config = write(tmp_path, text)
        code, said = import_json(tmp_path, {"new": {"command": "n"}}, config)
        assert code == 1 and reason in said, said
        assert config.read_text() == text


def test_name_clashes_are_reported_never_overwritten(tmp_path: Path) -> None:
    config = write(tmp_path, USER_CONFIG)
    code, said = import_json(
        tmp_path, {"old": {"command": "keep", "args": ["literal", "x"]}, "new": {"command": "n"}}, config
    )
    assert code == 0 and "old: already in" in said and "same settings" in said, said
    code, said = import_json(tmp_path, {"old": {"command": "other"}}, config)
    assert code == 1 and "conflict: old" in said and "left unchanged" in said, said
    assert load_config(config).servers["old"].command == "keep"


def test_a_write_whose_replace_fails_changes_nothing(tmp_path: Path) -> None:
    """The last step fails (a folder stands where the file goes): the target is as it was, nothing left."""
    blocked = tmp_path / "config.toml"
    blocked.mkdir()
    (blocked / "inside").write_text("a folder where the config should be")
    with pytest.raises(FileWriteError) as failed:
        write_atomically(blocked, b"[mcp_servers]\n", mode=0o600)
    assert str(failed.value).startswith(f"cannot write {blocked}: ") and "left unchanged" in str(failed.value)
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
    assert (blocked / "inside").read_text() == "a folder where the config should be"


def test_modes_new_files_are_private_and_existing_modes_never_loosen(tmp_path: Path) -> None:
    fresh = tmp_path / "new" / "deeper" / "config.toml"
    code, _ = import_json(tmp_path, {"a": {"command": "x"}}, fresh)
    assert code == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    assert stat.S_IMODE(fresh.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(fresh.parent.parent.stat().st_mode) == 0o700
    for before, after in ((0o644, 0o600), (0o640, 0o600), (0o400, 0o400), (0o600, 0o600)):
        config = write(tmp_path, USER_CONFIG, f"mode-{before:o}.toml")
        config.chmod(before)
        code, said = import_json(tmp_path, {"b": {"command": "x"}}, config)
        assert code == 0, said
        assert stat.S_IMODE(config.stat().st_mode) == after, f"{before:o}"
    default = tmp_path / "fresh-default" / "config.toml"
    assert write_default_config(default, "/usr/bin/python3")
    assert stat.S_IMODE(default.stat().st_mode) == 0o600
    assert stat.S_IMODE(default.parent.stat().st_mode) == 0o700


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    real = write(tmp_path, USER_CONFIG, "dotfiles-config.toml")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    code, said = import_json(tmp_path, {"new": {"command": "n"}}, link)
    assert code == 0, said
    assert link.is_symlink() and "new" in load_config(real).servers


def test_default_config_escapes_the_interpreter_path(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert write_default_config(path, '/opt/we"ird\x7f/python')
    assert load_config(path).servers["notes"].command == '/opt/we"ird\x7f/python'
