"""`tabgate-host` as a user runs it: install (with the default notes server), uninstall, doctor, config."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import HostDirs
from hostproc import HostProcess

from native_host.config.identity import HOST_NAME
from native_host.config.preview import DEFAULT_STARTUP_TIMEOUT_SEC
from tests.support.bounds import loaded

pytestmark = pytest.mark.host


def tabgate(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def user_env(host_dirs: HostDirs) -> dict[str, str]:
    """A user whose home, config, logs and data all live in the test's folder."""
    home = host_dirs.root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **host_dirs.env}
    env["TABGATE_CONFIG"] = str(host_dirs.config)
    return env


def test_install_writes_the_default_config_and_the_notes_server_works(
    host_dirs: HostDirs, user_env: dict[str, str]
) -> None:
    out = tabgate("install", "--user-data-dir", str(host_dirs.profile), env=user_env).stdout
    assert f"config: {host_dirs.config} (new, with the bundled notes server)" in out
    manifest = host_dirs.profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert f"manifest: {manifest}" in out
    launcher = Path(json.loads(manifest.read_text())["path"])
    assert "--config" not in launcher.read_text()  # the host finds the config through TABGATE_CONFIG
    host = HostProcess.start(launcher, env=user_env)
    try:
        host.wait_ready("notes")
        for n in range(120):
            added = host.call(
                "tools/call",
                {
                    "server": "notes",
                    "tool": "add_note",
                    "arguments": {"title": f"note {n}", "body": f"body {n} 50%_x"},
                },
            )
            assert added["structuredContent"]["id"] == n + 1
        found = host.call(
            "tools/call", {"server": "notes", "tool": "search_notes", "arguments": {"query": "7 50%_"}}
        )
        assert sorted(n["id"] for n in found["structuredContent"]["notes"]) == [
            8,
            18,
            28,
            38,
            48,
            58,
            68,
            78,
            88,
            98,
            108,
            118,
        ]
        page = host.call("resources/list", {"server": "notes"})
        uris = [r["uri"] for r in page["resources"]]
        while "nextCursor" in page:
            page = host.call("resources/list", {"server": "notes", "cursor": page["nextCursor"]})
            uris += [r["uri"] for r in page["resources"]]
        assert uris == [f"notes://note/{n}" for n in range(1, 121)]
        assert len(host.call("resources/list")["resources"]) == 120
        read = host.call("resources/read", {"server": "notes", "uri": "notes://note/3"})
        assert read["contents"][0]["text"].startswith("# note 2")
        deleted = host.call("tools/call", {"server": "notes", "tool": "delete_note", "arguments": {"id": 3}})
        assert deleted["structuredContent"] == {"deleted": True, "id": 3}
        missing = host.call("tools/call", {"server": "notes", "tool": "read_note", "arguments": {"id": 3}})
        assert missing["isError"] is True
        bad = host.call("tools/call", {"server": "notes", "tool": "add_note", "arguments": {"title": ""}})
        assert bad["isError"] is True and "title" in bad["content"][0]["text"]
        prompt = host.call(
            "prompts/get", {"server": "notes", "name": "summarize_notes", "arguments": {"query": "note 11"}}
        )
        assert "note 11" in prompt["messages"][0]["content"]["text"]
        assert host.close() == 0
    finally:
        host.kill()
    assert (host_dirs.data / "notes.sqlite3").is_file()
    assert host.violations == []


def test_install_for_a_browser_and_uninstall(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    out = tabgate("install", "--browser", "chrome", "--browser", "brave", env=user_env).stdout
    home = Path(user_env["HOME"])
    chrome = home / ".config" / "google-chrome" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    brave = (
        home / ".config" / "BraveSoftware" / "Brave-Browser" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    )
    assert chrome.is_file() and brave.is_file() and str(chrome) in out
    removed = tabgate("uninstall", "--browser", "all", env=user_env).stdout
    assert f"removed manifest: {chrome}" in removed and not chrome.exists() and not brave.exists()


def test_doctor_says_what_to_fix(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    tabgate("install", "--user-data-dir", str(host_dirs.profile), env=user_env)
    # The doctor starts the notes server once, within its start limit: on a busy machine the default 10 s
    # can run out (this test failed once at load 15), so the config allows it what a test waits for a start.
    limit = f"startup_timeout_sec = {loaded(DEFAULT_STARTUP_TIMEOUT_SEC):g}"
    config = host_dirs.config.read_text()
    host_dirs.config.write_text(config.replace("[mcp_servers.notes]", f"[mcp_servers.notes]\n{limit}\n", 1))
    doctor = ["doctor", "--user-data-dir", str(host_dirs.profile)]
    healthy = tabgate(*doctor, env=user_env)
    assert "everything looks right" in healthy.stdout and "server notes: ready" in healthy.stdout

    folder = host_dirs.profile / "NativeMessagingHosts"
    manifest_path = folder / f"{HOST_NAME}.json"
    manifest = json.loads(manifest_path.read_text())
    launcher = Path(manifest["path"])
    manifest["allowed_origins"] = ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"]
    manifest_path.write_text(json.dumps(manifest))
    launcher.chmod(0o644)
    launcher.write_text(launcher.read_text().replace(sys.executable, "/nonexistent/bin/python"))
    (folder / "other.host.json").write_text(
        json.dumps({"allowed_origins": [f"chrome-extension://{'aiflcfephbehodcbbjggcmhdjpgmidmd'}/"]})
    )
    misplaced = host_dirs.profile / "Default" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    misplaced.parent.mkdir(parents=True)
    misplaced.write_text("{}")
    with host_dirs.config.open("a") as config:
        config.write(
            '\n[mcp_servers.ghost]\ncommand = "tabgate-missing-command"\n\n[mcp_servers.typo]\ncomand = "x"\n'
        )
    host_dirs.config.chmod(0o644)
    not_a_folder = host_dirs.root / "file"
    not_a_folder.write_text("")
    broken_env = {**user_env, "TABGATE_LOG_DIR": str(not_a_folder / "logs")}

    sick = tabgate(*doctor, env=broken_env, check=False)
    report = sick.stdout
    assert sick.returncode == 1, report
    for expected in (
        "not the Tabgate extension",
        "is not executable",
        "/nonexistent/bin/python is gone",
        "other.host.json also claims the Tabgate extension",
        f"{misplaced} is in the wrong place",
        "is not writable",
        "[mcp_servers.typo] comand: unknown key",
        f"config {host_dirs.config} can be read by other users (mode 0644)",
        f"chmod 600 {host_dirs.config}",
        "server ghost: MCP client for `ghost` failed to start: command not found: tabgate-missing-command",
        "server notes: ready",
    ):
        assert expected in report, f"{expected!r} missing from:\n{report}"
    assert report.count("fix:") >= 7


def test_doctor_without_any_install(user_env: dict[str, str]) -> None:
    done = tabgate("doctor", env=user_env, check=False)
    assert (
        done.returncode == 1
        and "not installed for any browser" in done.stdout
        and "tabgate-host install" in done.stdout
    )


def test_config_path_show_check_import(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    assert str(host_dirs.config) in tabgate("config", "path", env=user_env).stdout
    host_dirs.config.write_text(
        '[mcp_servers.api]\nurl = "https://h/mcp?key=topsecret1"\n'
        'http_headers = { Authorization = "Bearer topsecret2" }\n'
        '[mcp_servers.tool]\ncommand = "x"\nenv = { TOKEN = "topsecret3" }\n'
        'args = ["--api-key=topsecret4", "--token", "topsecret5", "Authorization: Bearer topsecret6"]\n'
    )
    shown = tabgate("config", "show", env=user_env)
    assert "topsecret" not in shown.stdout + shown.stderr and "TOKEN" in shown.stdout
    assert "values are hidden" in shown.stdout
    assert "2 valid server(s): api, tool" in tabgate("config", "check", env=user_env).stdout
    cursor = host_dirs.root / "mcp.json"
    cursor.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
                    "tool": {"command": "y"},
                }
            }
        )
    )
    imported = tabgate("config", "import", str(cursor), env=user_env, check=False).stdout
    assert "added: fetch" in imported and "conflict: tool (already in" in imported
    assert "3 valid server(s): api, fetch, tool" in tabgate("config", "check", env=user_env).stdout
    host_dirs.config.write_text(
        host_dirs.config.read_text() + '[mcp_servers.bad]\nurl = "http://h/mcp"\ncommand = "z"\n'
    )
    failing = tabgate("config", "check", env=user_env, check=False)
    assert failing.returncode == 1 and f"{host_dirs.config}: [mcp_servers.bad]" in failing.stdout


ISSUE_9_CONFIG = '# my servers\n[mcp_servers.old]  # keep\ncommand = "keep"\n'


def import_file(tmp: Path, name: str, servers: dict[str, object]) -> Path:
    path = tmp / name
    path.write_text(json.dumps({"mcpServers": servers}))  # json.dumps writes "\ud800" as that escape
    return path


def test_importing_the_issue_9_files_never_breaks_the_config(
    host_dirs: HostDirs, user_env: dict[str, str]
) -> None:
    host_dirs.root.mkdir(parents=True, exist_ok=True)
    host_dirs.config.write_text(ISSUE_9_CONFIG)
    lone = import_file(host_dirs.root, "lone.json", {"s": {"command": "x", "args": ["\ud800"]}})
    refused = tabgate("config", "import", str(lone), env=user_env, check=False)
    assert refused.returncode == 1
    assert "[mcp_servers.s] args.0: " in refused.stdout and "U+D800" in refused.stdout, refused.stdout
    assert "0 server(s) added" in refused.stdout
    assert host_dirs.config.read_text() == ISSUE_9_CONFIG  # nothing to add: the file is not even rewritten
    assert "1 valid server(s): old" in tabgate("config", "check", env=user_env).stdout

    delete = import_file(host_dirs.root, "del.json", {"d": {"command": "x", "args": ["a\x7fb"]}})
    added = tabgate("config", "import", str(delete), env=user_env)
    assert "added: d" in added.stdout
    assert host_dirs.config.read_text().startswith(ISSUE_9_CONFIG)
    assert "2 valid server(s): d, old" in tabgate("config", "check", env=user_env).stdout
    shown = tomllib.loads(tabgate("config", "show", env=user_env).stdout)
    assert shown["mcp_servers"]["d"]["args"] == ["a\x7fb"]


def _limit_file_size(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_write_that_runs_out_of_space_leaves_the_old_config_byte_for_byte(
    host_dirs: HostDirs, user_env: dict[str, str]
) -> None:
    """The disk fills up mid-write (a file size limit stands in for a full disk): the config is kept whole."""
    host_dirs.root.mkdir(parents=True, exist_ok=True)
    original = ISSUE_9_CONFIG + "".join(f"# comment line {n} of the user's own notes\n" for n in range(40))
    host_dirs.config.write_text(original)
    source = import_file(host_dirs.root, "big.json", {"new": {"command": "n", "args": ["x" * 4000]}})
    before = sorted(p.name for p in host_dirs.config.parent.iterdir())
    done = subprocess.run(
        [sys.executable, "-m", "native_host.cli", "config", "import", str(source)],
        capture_output=True,
        text=True,
        env=user_env,
        timeout=120,
        preexec_fn=_limit_file_size(len(original.encode()) + 100),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"cannot write {host_dirs.config}" in done.stdout + done.stderr
    assert "left unchanged" in done.stdout + done.stderr
    assert host_dirs.config.read_bytes() == original.encode()
    assert sorted(p.name for p in host_dirs.config.parent.iterdir()) == before  # no temporary file left


def test_install_writes_private_files(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    config = host_dirs.root / "fresh" / "config.toml"
    tabgate("install", "--user-data-dir", str(host_dirs.profile), "--config", str(config), env=user_env)
    folder = host_dirs.profile / "NativeMessagingHosts"
    manifest = folder / f"{HOST_NAME}.json"
    launcher = Path(json.loads(manifest.read_text())["path"])
    modes = {
        path: stat.S_IMODE(path.stat().st_mode)
        for path in (config, config.parent, folder, manifest, launcher)
    }
    assert modes == {config: 0o600, config.parent: 0o700, folder: 0o700, manifest: 0o600, launcher: 0o700}


def test_doctor_checks_the_config_the_launcher_passes(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    """`install --config FILE` puts FILE in the launcher; doctor must check FILE, not the default config."""
    passed = host_dirs.root / "passed" / "config.toml"
    tabgate("install", "--user-data-dir", str(host_dirs.profile), "--config", str(passed), env=user_env)
    host_dirs.config.write_text('[mcp_servers.default_only]\ncomand = "x"\n')  # the default: broken, unused
    doctor = ["doctor", "--user-data-dir", str(host_dirs.profile)]
    healthy = tabgate(*doctor, env=user_env)
    assert "everything looks right" in healthy.stdout and "server notes: ready" in healthy.stdout
    assert f"config {passed} (passed by the launcher" in healthy.stdout, healthy.stdout
    assert str(host_dirs.config) not in healthy.stdout and "default_only" not in healthy.stdout

    with passed.open("a") as config:
        config.write('\n[mcp_servers.typo]\ncomand = "x"\n')
    sick = tabgate(*doctor, env=user_env, check=False)
    assert sick.returncode == 1, sick.stdout
    assert f"{passed}: [mcp_servers.typo] comand: unknown key" in sick.stdout, sick.stdout


def test_install_says_which_file_it_cannot_write(host_dirs: HostDirs, user_env: dict[str, str]) -> None:
    host_dirs.root.mkdir(parents=True, exist_ok=True)
    not_a_folder = host_dirs.root / "plain-file"
    not_a_folder.write_text("")
    config = not_a_folder / "config.toml"
    done = tabgate(
        "install",
        "--user-data-dir",
        str(host_dirs.profile),
        "--config",
        str(config),
        env=user_env,
        check=False,
    )
    assert done.returncode == 1 and f"cannot write {config}: " in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
