"""Writing and removing the host manifest and its launcher (and, on Windows, the registry key)."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from ..config.files import PRIVATE_FILE, PRIVATE_FOLDER, write_atomically
from ..config.identity import EXTENSION_ORIGIN, HOST_DESCRIPTION, HOST_NAME
from .locations import Location, Platform, RegistryKey


def launcher_path(location: Location) -> PurePath:
    """The launcher sits next to the manifest, so each install (with its own --config) has its own."""
    suffix = ".bat" if location.registry is not None else ".sh"
    return location.manifest.with_name(f"tabgate-host{suffix}")


def render_manifest(launcher: PurePath) -> dict[str, Any]:
    return {
        "name": HOST_NAME,
        "description": HOST_DESCRIPTION,
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [EXTENSION_ORIGIN],
    }


def render_launcher(platform: Platform, python: str, config: PurePath | None) -> str:
    """A script running the host with an absolute interpreter path: browsers start hosts with a minimal PATH.

    `-P` keeps the browser's working directory off sys.path. The browser's arguments (the origin, and on
    Windows --parent-window) come first, so the origin stays argv[1] for the host."""
    if platform == "win32":
        extra = f' --config "{config}"' if config else ""
        return (
            "@echo off\r\n"
            "rem Tabgate native host launcher, written by `tabgate-host install`.\r\n"
            f'"{python}" -P -m native_host.cli %*{extra}\r\n'
        )
    extra = f" --config {shlex.quote(str(config))}" if config else ""
    return (
        "#!/bin/sh\n"
        "# Tabgate native host launcher, written by `tabgate-host install`.\n"
        "# The browser runs it with the caller's origin as $1.\n"
        f'exec {shlex.quote(python)} -P -m native_host.cli "$@"{extra}\n'
    )


@dataclass(frozen=True, slots=True)
class Written:
    what: str  # "manifest", "launcher", "registry"
    where: str

    def __str__(self) -> str:
        return f"{self.what}: {self.where}"


def install_at(
    location: Location, *, platform: Platform, config: Path | None, python: str | None = None
) -> list[Written]:
    launcher = Path(launcher_path(location))
    manifest = Path(location.manifest)
    # A per-user install is the user's alone; a system-wide one must be readable by every user's browser.
    folder, script, data = (0o755, 0o755, 0o644) if location.system else (PRIVATE_FOLDER, 0o700, PRIVATE_FILE)
    launcher_text = render_launcher(platform, python or sys.executable, config)
    write_atomically(launcher, launcher_text.encode("utf-8"), mode=script, folder_mode=folder)
    manifest_text = json.dumps(render_manifest(launcher), indent=2) + "\n"
    write_atomically(manifest, manifest_text.encode("utf-8"), mode=data, folder_mode=folder)
    written = [Written("launcher", str(launcher)), Written("manifest", str(manifest))]
    if location.registry is not None:
        _set_registry(location.registry, str(manifest))
        written.append(Written("registry", f"{location.registry.hive}\\{location.registry.path}"))
    return written


def uninstall_at(location: Location) -> list[Written]:
    removed: list[Written] = []
    for what, path in (("manifest", Path(location.manifest)), ("launcher", Path(launcher_path(location)))):
        if path.exists():
            path.unlink()
            removed.append(Written(what, str(path)))
    if location.registry is not None and _delete_registry(location.registry):
        removed.append(Written("registry", f"{location.registry.hive}\\{location.registry.path}"))
    return removed


def read_registry(key: RegistryKey) -> str | None:
    """The manifest path a Windows registry key points to, or None when the key is absent."""
    if sys.platform != "win32":
        return None
    import winreg

    hive = winreg.HKEY_CURRENT_USER if key.hive == "HKCU" else winreg.HKEY_LOCAL_MACHINE
    try:
        with winreg.OpenKey(hive, key.path) as handle:
            value, _kind = winreg.QueryValueEx(handle, "")
    except OSError:
        return None
    return str(value)


def _set_registry(key: RegistryKey, manifest: str) -> None:
    if sys.platform != "win32":
        raise OSError(f"cannot write registry key {key.hive}\\{key.path}: not on Windows")
    import winreg

    hive = winreg.HKEY_CURRENT_USER if key.hive == "HKCU" else winreg.HKEY_LOCAL_MACHINE
    with winreg.CreateKey(hive, key.path) as handle:
        winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, manifest)


def _delete_registry(key: RegistryKey) -> bool:
    if sys.platform != "win32":
        return False
    import winreg

    hive = winreg.HKEY_CURRENT_USER if key.hive == "HKCU" else winreg.HKEY_LOCAL_MACHINE
    try:
        winreg.DeleteKey(hive, key.path)
    except FileNotFoundError:
        return False
    return True


def current_platform() -> Platform:
    if sys.platform == "win32":
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"
