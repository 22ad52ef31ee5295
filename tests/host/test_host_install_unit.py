"""Manifest locations for every browser and OS (pure data, checked on Linux), manifests and launchers."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from native_host.config.identity import EXTENSION_ORIGIN, HOST_NAME, HOST_VERSION
from native_host.config.loading import write_default_config
from native_host.setup.doctor import run_doctor
from native_host.setup.install import (
    install_at,
    launcher_path,
    render_launcher,
    render_manifest,
    uninstall_at,
)
from native_host.setup.locations import (
    BROWSERS,
    PLATFORMS,
    Location,
    browser_location,
    user_data_dir_location,
)

pytestmark = pytest.mark.unit

HOME = PurePosixPath("/home/ada")


@pytest.mark.parametrize(
    ("browser", "user", "system"),
    [
        (
            "chrome",
            "/home/ada/.config/google-chrome/NativeMessagingHosts",
            "/etc/opt/chrome/native-messaging-hosts",
        ),
        (
            "chromium",
            "/home/ada/.config/chromium/NativeMessagingHosts",
            "/etc/chromium/native-messaging-hosts",
        ),
        (
            "edge",
            "/home/ada/.config/microsoft-edge/NativeMessagingHosts",
            "/etc/opt/edge/native-messaging-hosts",
        ),
        (
            "brave",
            "/home/ada/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            "/etc/opt/brave/native-messaging-hosts",
        ),
    ],
)
def test_linux_locations(browser: str, user: str, system: str) -> None:
    mine = browser_location("linux", browser, system=False, home=HOME, env={})  # type: ignore[arg-type]
    everyone = browser_location("linux", browser, system=True, home=HOME, env={})  # type: ignore[arg-type]
    assert str(mine.manifest) == f"{user}/{HOST_NAME}.json"
    assert str(everyone.manifest) == f"{system}/{HOST_NAME}.json"
    assert mine.registry is None
    xdg = browser_location("linux", browser, system=False, home=HOME, env={"XDG_CONFIG_HOME": "/x"})  # type: ignore[arg-type]
    assert str(xdg.manifest).startswith("/x/")


@pytest.mark.parametrize(
    ("browser", "user", "system"),
    [
        ("chrome", "Google/Chrome", "/Library/Google/Chrome/NativeMessagingHosts"),
        ("chromium", "Chromium", "/Library/Application Support/Chromium/NativeMessagingHosts"),
        ("edge", "Microsoft Edge", "/Library/Microsoft/Edge/NativeMessagingHosts"),
        (
            "brave",
            "BraveSoftware/Brave-Browser",
            "/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        ),
    ],
)
def test_macos_locations(browser: str, user: str, system: str) -> None:
    mine = browser_location("darwin", browser, system=False, home=PurePosixPath("/Users/ada"), env={})  # type: ignore[arg-type]
    everyone = browser_location("darwin", browser, system=True, home=PurePosixPath("/Users/ada"), env={})  # type: ignore[arg-type]
    assert (
        str(mine.manifest)
        == f"/Users/ada/Library/Application Support/{user}/NativeMessagingHosts/{HOST_NAME}.json"
    )
    assert str(everyone.manifest) == f"{system}/{HOST_NAME}.json"


@pytest.mark.parametrize(
    ("browser", "key"),
    [
        ("chrome", r"Software\Google\Chrome\NativeMessagingHosts"),
        ("chromium", r"Software\Chromium\NativeMessagingHosts"),
        ("edge", r"Software\Microsoft\Edge\NativeMessagingHosts"),
        ("brave", r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts"),
    ],
)
def test_windows_registry_and_manifest_files(browser: str, key: str) -> None:
    env = {"LOCALAPPDATA": r"C:\Users\ada\AppData\Local", "ProgramData": r"C:\ProgramData"}
    home = PureWindowsPath(r"C:\Users\ada")
    mine = browser_location("win32", browser, system=False, home=home, env=env)  # type: ignore[arg-type]
    everyone = browser_location("win32", browser, system=True, home=home, env=env)  # type: ignore[arg-type]
    assert mine.registry is not None and everyone.registry is not None
    assert (mine.registry.hive, mine.registry.path) == ("HKCU", f"{key}\\{HOST_NAME}")
    assert (everyone.registry.hive, everyone.registry.path) == ("HKLM", f"{key}\\{HOST_NAME}")
    assert (
        str(mine.manifest)
        == rf"C:\Users\ada\AppData\Local\tabgate\NativeMessagingHosts\{browser}\{HOST_NAME}.json"
    )
    assert str(everyone.manifest).startswith("C:\\ProgramData\\tabgate\\")
    assert str(launcher_path(mine)).endswith("tabgate-host.bat")


def test_every_browser_and_platform_has_distinct_locations() -> None:
    seen = set()
    for platform in PLATFORMS:
        for browser in BROWSERS:
            for system in (False, True):
                seen.add(str(browser_location(platform, browser, system=system, home=HOME, env={}).manifest))
    assert len(seen) == len(PLATFORMS) * len(BROWSERS) * 2


def test_manifest_and_launchers() -> None:
    manifest = render_manifest(PurePosixPath("/a/tabgate-host.sh"))
    assert manifest == {
        "name": HOST_NAME,
        "description": manifest["description"],
        "path": "/a/tabgate-host.sh",
        "type": "stdio",
        "allowed_origins": [EXTENSION_ORIGIN],
    }
    posix = render_launcher("linux", "/opt/py thon/bin/python", PurePosixPath("/c/my config.toml"))
    assert "exec '/opt/py thon/bin/python' -P -m native_host.cli \"$@\" --config '/c/my config.toml'" in posix
    windows = render_launcher("win32", r"C:\Py\python.exe", PureWindowsPath(r"C:\cfg\config.toml"))
    assert '"C:\\Py\\python.exe" -P -m native_host.cli %* --config "C:\\cfg\\config.toml"\r\n' in windows
    assert "--config" not in render_launcher("linux", "/py", None)


def test_install_and_uninstall_round_trip(tmp_path: Path) -> None:
    location = user_data_dir_location(tmp_path)
    written = install_at(location, platform="linux", config=tmp_path / "c.toml")
    assert [w.what for w in written] == ["launcher", "manifest"]
    manifest = json.loads(Path(location.manifest).read_text())
    launcher = Path(manifest["path"])
    assert os.access(launcher, os.X_OK) and sys.executable in launcher.read_text()
    removed = uninstall_at(location)
    assert {w.what for w in removed} == {"manifest", "launcher"}
    assert not Path(location.manifest).exists() and not launcher.exists()


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    assert version("tabgate") == HOST_VERSION


def test_cli_help_and_unknown_command() -> None:
    done = subprocess.run([sys.executable, "-m", "native_host.cli", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "install" in done.stdout and "doctor" in done.stdout


def test_per_user_installs_are_private_system_ones_readable_by_all(tmp_path: Path) -> None:
    mine = user_data_dir_location(tmp_path / "profile")
    install_at(mine, platform="linux", config=None)
    folder = Path(mine.manifest).parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(mine.manifest).stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(launcher_path(mine)).stat().st_mode) == 0o700
    existing = tmp_path / "shared"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    install_at(Location(None, False, existing / f"{HOST_NAME}.json"), platform="linux", config=None)
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755  # a folder that was there is left as it was

    everyone = Location("chrome", True, tmp_path / "etc" / "native-messaging-hosts" / f"{HOST_NAME}.json")
    install_at(everyone, platform="linux", config=None)
    assert stat.S_IMODE(Path(everyone.manifest).parent.stat().st_mode) == 0o755
    assert stat.S_IMODE(Path(everyone.manifest).stat().st_mode) == 0o644
    assert stat.S_IMODE(Path(launcher_path(everyone)).stat().st_mode) == 0o755


def test_doctor_checks_each_config_an_installed_launcher_passes(tmp_path: Path) -> None:
    first, second = user_data_dir_location(tmp_path / "one"), user_data_dir_location(tmp_path / "two")
    good, broken = tmp_path / "good.toml", tmp_path / "broken.toml"
    install_at(first, platform="linux", config=good)
    install_at(second, platform="linux", config=broken)
    write_default_config(good, sys.executable)
    write_default_config(broken, sys.executable)
    with broken.open("a") as config:
        config.write('[mcp_servers.slow]\ncommand = "x"\nstartup_timeout_sec = 1e308\n')
    default = tmp_path / "default.toml"  # no launcher reads it: not checked
    out = io.StringIO()
    code = run_doctor(
        locations=[first, second],
        config_path=default,
        log_dir=tmp_path / "logs",
        out=out,
        start_servers=False,
    )
    report = out.getvalue()
    assert code == 1, report
    assert f"config {good} (passed by the launcher {launcher_path(first)}): 1 server(s)" in report
    assert f"{broken}: [mcp_servers.slow] startup_timeout_sec: must be at most 86400" in report
    assert str(default) not in report
