"""Where each browser looks for native-messaging host manifests, per OS: pure data, testable anywhere."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Final, Literal

from ..config.identity import APP_NAME, HOST_NAME

type Browser = Literal["chrome", "chromium", "edge", "brave"]
type Platform = Literal["linux", "darwin", "win32"]
type Hive = Literal["HKCU", "HKLM"]

BROWSERS: Final[tuple[Browser, ...]] = ("chrome", "chromium", "edge", "brave")
PLATFORMS: Final[tuple[Platform, ...]] = ("linux", "darwin", "win32")
MANIFEST_FILE: Final = f"{HOST_NAME}.json"

# Linux per-user: under $XDG_CONFIG_HOME (default ~/.config), then NativeMessagingHosts.
_LINUX_USER: Final[Mapping[Browser, str]] = {
    "chrome": "google-chrome",
    "chromium": "chromium",
    "edge": "microsoft-edge",
    "brave": "BraveSoftware/Brave-Browser",
}
_LINUX_SYSTEM: Final[Mapping[Browser, str]] = {
    "chrome": "/etc/opt/chrome/native-messaging-hosts",
    "chromium": "/etc/chromium/native-messaging-hosts",
    "edge": "/etc/opt/edge/native-messaging-hosts",
    "brave": "/etc/opt/brave/native-messaging-hosts",
}
# macOS per-user: under ~/Library/Application Support, then NativeMessagingHosts.
_MAC_USER: Final[Mapping[Browser, str]] = {
    "chrome": "Google/Chrome",
    "chromium": "Chromium",
    "edge": "Microsoft Edge",
    "brave": "BraveSoftware/Brave-Browser",
}
_MAC_SYSTEM: Final[Mapping[Browser, str]] = {
    "chrome": "/Library/Google/Chrome/NativeMessagingHosts",
    "chromium": "/Library/Application Support/Chromium/NativeMessagingHosts",
    "edge": "/Library/Microsoft/Edge/NativeMessagingHosts",
    "brave": "/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
}
# Windows: the browser reads the key's default value, the manifest's full path; the file can live anywhere.
_WIN_KEYS: Final[Mapping[Browser, str]] = {
    "chrome": r"Software\Google\Chrome\NativeMessagingHosts",
    "chromium": r"Software\Chromium\NativeMessagingHosts",
    "edge": r"Software\Microsoft\Edge\NativeMessagingHosts",
    "brave": r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
}


@dataclass(frozen=True, slots=True)
class RegistryKey:
    hive: Hive
    path: str  # e.g. Software\Google\Chrome\NativeMessagingHosts\dev.tabgate.host


@dataclass(frozen=True, slots=True)
class Location:
    """One place a browser looks: the manifest file (the launcher goes beside it) and, on Windows, a key."""

    browser: Browser | None  # None: an explicit --user-data-dir
    system: bool
    manifest: PurePath
    registry: RegistryKey | None = None


def browser_location(
    platform: Platform, browser: Browser, *, system: bool, home: PurePath, env: Mapping[str, str]
) -> Location:
    if platform == "linux":
        base = PurePosixPath(home)
        if system:
            folder = PurePosixPath(_LINUX_SYSTEM[browser])
        else:
            xdg = env.get("XDG_CONFIG_HOME", "")
            config = PurePosixPath(xdg) if xdg.startswith("/") else base / ".config"
            folder = config / _LINUX_USER[browser] / "NativeMessagingHosts"
        return Location(browser, system, folder / MANIFEST_FILE)
    if platform == "darwin":
        if system:
            folder = PurePosixPath(_MAC_SYSTEM[browser])
        else:
            folder = (
                PurePosixPath(home)
                / "Library/Application Support"
                / _MAC_USER[browser]
                / "NativeMessagingHosts"
            )
        return Location(browser, system, folder / MANIFEST_FILE)
    root_var, fallback = ("ProgramData", r"C:\ProgramData") if system else ("LOCALAPPDATA", None)
    root = env.get(root_var) or fallback or str(PureWindowsPath(home) / "AppData" / "Local")
    windows_folder = PureWindowsPath(root) / APP_NAME / "NativeMessagingHosts" / browser
    key = RegistryKey("HKLM" if system else "HKCU", f"{_WIN_KEYS[browser]}\\{HOST_NAME}")
    return Location(browser, system, windows_folder / MANIFEST_FILE, key)


def user_data_dir_location(user_data_dir: PurePath) -> Location:
    """A browser started with --user-data-dir=DIR also reads DIR/NativeMessagingHosts (Linux and macOS)."""
    return Location(None, False, user_data_dir / "NativeMessagingHosts" / MANIFEST_FILE)
