"""Launching Debian's Chromium with the built extension, and talking to it as an extension page does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Playwright, expect

from tests.support.bounds import BROWSER_CALL_S, PYTHON_BOOT_S, SERVERS_UP_S, TOOL_CALL_S
from tests.support.default_place import kept_apart

ROOT = Path(__file__).resolve().parents[2]
EXTENSION_DIR = ROOT / "dist" / "extension"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PYTHON_BOOT_TIMEOUT_S = PYTHON_BOOT_S
# A page reaching a state (a popup drawing what the worker knows, an element appearing) is bounded like a
# browser tool's wait: Playwright's own 5 s (expect) and 30 s (actions) are guesses for a quiet machine.
expect.set_options(timeout=BROWSER_CALL_S * 1000)


class BrowserUnavailable(RuntimeError):
    """Chromium is not installed: the e2e tier cannot run and must fail, not skip."""


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise BrowserUnavailable(
            "Debian's chromium is not installed (apt-get install -y chromium); the e2e tier cannot run"
        )
    return path


def tabgate_host_bin() -> Path:
    return Path(sys.executable).parent / "tabgate-host"


def install_host(user_data_dir: Path, config: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Install the native host into the profile exactly as a user would, with the real CLI."""
    cmd = [str(tabgate_host_bin()), "install", "--user-data-dir", str(user_data_dir)]
    if config is not None:
        cmd += ["--config", str(config)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})})


@dataclass
class Extension:
    context: BrowserContext
    id: str
    page: Page  # an extension page: chrome.runtime.sendMessage works from here exactly as from the popup

    def send(self, message: dict[str, Any], timeout_s: float = TOOL_CALL_S) -> Any:
        return self.page.evaluate(
            """async ([m, t]) => {
                const timer = new Promise((_, rej) =>
                    setTimeout(() => rej(new Error('no answer to ' + m.type)), t));
                return await Promise.race([chrome.runtime.sendMessage(m), timer]);
            }""",
            [message, int(timeout_s * 1000)],
        )

    def wait_python_ready(self, timeout_s: float = PYTHON_BOOT_TIMEOUT_S) -> dict[str, Any]:
        """Poll status until Python is ready; Pyodide hangs silently on a bad CSP, so this is bounded."""
        deadline = time.monotonic() + timeout_s
        status: dict[str, Any] = {}
        while time.monotonic() < deadline:
            status = self.send({"type": "status"})
            if status["python"] == "ready":
                return status
            if status["python"] == "failed":
                raise AssertionError(str(status.get("pythonError")))
            time.sleep(0.1)
        raise AssertionError(f"Python not ready after {timeout_s}s; last status {json.dumps(status)}")

    def dispatch(self, item: dict[str, Any]) -> Any:
        return self.send({"type": "dispatch", "item": item})

    def stop_service_worker(self) -> None:
        cdp = self.context.new_cdp_session(self.page)
        cdp.send("ServiceWorker.enable")
        cdp.send("ServiceWorker.stopAllWorkers")
        cdp.detach()


def grant_site_access(pw: Playwright, user_data_dir: Path, origins: list[str]) -> None:
    """Leave the profile as it is after the user granted Tabgate access to these sites.

    Chrome shows the optional-permission prompt as a native bubble that headless Chromium cannot click,
    so the grant is written where Chrome keeps it (the profile's Preferences) after a first launch has
    installed the extension; the extension then sees it through chrome.permissions exactly as a real grant.
    """
    prefs_file = user_data_dir / "Default" / "Preferences"
    if not prefs_file.exists():
        with launch(pw, user_data_dir):
            pass
    prefs = json.loads(prefs_file.read_text())
    settings = prefs["extensions"]["settings"]
    ext_settings = next(v for v in settings.values() if v.get("path") == str(EXTENSION_DIR))
    patterns = [o if o == "<all_urls>" else f"{o.rstrip('/')}/*" for o in origins]
    for key in ("active_permissions", "granted_permissions", "runtime_granted_permissions"):
        perms = ext_settings.setdefault(key, {"api": [], "manifest_permissions": []})
        for field in ("explicit_host", "scriptable_host"):
            perms[field] = sorted({*perms.get(field, []), *patterns})
    prefs_file.write_text(json.dumps(prefs))


@contextmanager
def launch(
    pw: Playwright,
    user_data_dir: Path,
    *,
    extension_dir: Path = EXTENSION_DIR,
    env: dict[str, str] | None = None,
    headless: bool = True,
    extra_args: tuple[str, ...] = (),
    open_timeout_ms: float | None = None,
    bfcache: bool = False,
    default_place: bool = False,
) -> Iterator[Extension]:
    """Chromium with the extension; `env` joins the environment Chromium passes on to the native host;
    `extra_args` are more Chromium flags (e.g. --host-resolver-rules for sites of other names); `bfcache`
    keeps Chrome's back/forward cache on, as a person's Chrome has it (Playwright turns it off);
    `open_timeout_ms` bounds opening the extension page (`BROWSER_CALL_S` when None).

    The host serves agents in a folder of the profile's own (`kept_apart`) unless this process claimed the
    gateway's default place or `default_place` says the browser is the person's (`build.py run`): a host of
    this run at the default place would tell another run's agents a wrong story."""
    host_env = {**os.environ, **(env or {})}
    if not default_place:
        host_env = kept_apart(host_env, user_data_dir / "tabgate-run")
    if not (extension_dir / "manifest.json").exists():
        raise AssertionError(f"{extension_dir} is not built; run python3 build.py")
    context = pw.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=chromium_path(),
        headless=headless,
        args=[
            *CHROMIUM_FLAGS,
            f"--disable-extensions-except={extension_dir}",
            f"--load-extension={extension_dir}",
            *extra_args,
        ],
        env=host_env,
        ignore_default_args=["--disable-back-forward-cache"] if bfcache else None,
    )
    context.set_default_timeout(BROWSER_CALL_S * 1000)
    try:
        worker = (
            context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
        )
        ext_id = worker.url.split("/")[2]
        page = context.new_page()
        page.goto(f"chrome-extension://{ext_id}/ui/popup.html", timeout=open_timeout_ms)
        yield Extension(context=context, id=ext_id, page=page)
    finally:
        context.close()


@contextmanager
def launch_with_mcp(
    pw: Playwright,
    folder: Path,
    config_text: str,
    env: dict[str, str],
    *,
    offering: frozenset[str] = frozenset(),
    timeout_s: float = SERVERS_UP_S,
) -> Iterator[Extension]:
    """Chromium with the extension and the real host reading `config_text`, MCP tools switched on, once the
    tools named in `offering` are offered."""
    config = folder / "config.toml"
    config.write_text(config_text)
    install_host(folder / "profile", config, env=env)
    with launch(pw, folder / "profile", env=env) as ext:
        ext.wait_python_ready()
        assert ext.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
        deadline = time.monotonic() + timeout_s
        while not offering <= {tool["name"] for tool in ext.send({"type": "tools"})["tools"]}:
            assert time.monotonic() < deadline, f"never offered: {sorted(offering)}"
            time.sleep(0.2)
        yield ext
