"""`tabgate-host` as a user runs it: install (with the default notes server), uninstall, doctor, config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HostDirs
from hostproc import HostProcess

from native_host.identity import HOST_NAME

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
    )
    shown = tabgate("config", "show", env=user_env)
    assert "topsecret" not in shown.stdout + shown.stderr and "TOKEN" in shown.stdout
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
    imported = tabgate("config", "import", str(cursor), env=user_env).stdout
    assert "added: fetch" in imported and "skipped: tool (already in" in imported
    assert "3 valid server(s): api, fetch, tool" in tabgate("config", "check", env=user_env).stdout
    host_dirs.config.write_text(
        host_dirs.config.read_text() + '[mcp_servers.bad]\nurl = "http://h/mcp"\ncommand = "z"\n'
    )
    failing = tabgate("config", "check", env=user_env, check=False)
    assert failing.returncode == 1 and f"{host_dirs.config}: [mcp_servers.bad]" in failing.stdout
