"""The person's side of gateway end-to-end tests: a browser whose host serves agents at the default place,
the popup and the runtime API the popup uses to answer, share and look agents up."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright

from native_host.gateway.place import socket_paths
from native_host.gateway.standing import Where, diagnose
from tests.core.fenced import unwrapped
from tests.support.agents import default_place_free, served
from tests.support.bounds import BROWSER_CALL_S, HOST_CONNECT_S, server_ready_s
from tests.support.browser import Extension, grant_site_access, install_host, launch
from tests.support.local_site import serve


@contextmanager
def browser(
    pw: Playwright,
    profile: Path,
    env: dict[str, str],
    extra_args: tuple[str, ...] = (),
    bfcache: bool = False,
) -> Iterator[Extension]:
    default_place_free()
    with launch(pw, profile, env=env, extra_args=extra_args, bfcache=bfcache) as ext:
        ext.wait_python_ready()
        deadline = time.monotonic() + HOST_CONNECT_S
        while ext.send({"type": "status"})["host"] != "connected":
            assert time.monotonic() < deadline, "the host did not connect"
            time.sleep(0.1)
        # "connected" comes before the host's loop starts (it imports mcp first); agents read its state file,
        # which says "starting" until the browser has told the host whether the gateway is on
        deadline = time.monotonic() + HOST_CONNECT_S
        while diagnose([path.parent for path in socket_paths()]).where in (Where.NO_BROWSER, Where.STARTING):
            assert time.monotonic() < deadline, "the host did not write its state for agents"
            time.sleep(0.05)
        yield ext


@contextmanager
def gateway_browser(
    pw: Playwright, folder: Path, host_env: dict[str, str], sites: list[str], config: str = "# no servers\n"
) -> Iterator[Extension]:
    """A browser on a desktop's environment with the host installed (its config `config`), `sites` granted
    and the gateway on; in `folder` (its profile and desktop folders)."""
    env = desktop_env(host_env, folder)
    profile = folder / "profile"
    profile.mkdir()
    (profile / "config.toml").write_text(config)
    install_host(profile, profile / "config.toml", env=env)
    grant_site_access(pw, profile, sites)
    with browser(pw, profile, env) as ext:
        gateway(ext, True)
        yield ext
        gateway(ext, False)


def open_popup(ext: Extension) -> Page:
    page = ext.context.new_page()
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    return page


def gateway(ext: Extension, on: bool) -> None:
    """Switch *Let agents use Tabgate*; on, until the host serves agents (they list Tabgate's fixed tools
    before that too, so listing does not tell a test the browser is reachable)."""
    assert ext.send({"type": "config/set", "patch": {"gateway": on}})["gateway"] is on
    deadline = time.monotonic() + HOST_CONNECT_S
    while on and not any(served(path) for path in socket_paths()):
        assert time.monotonic() < deadline, "the host did not start serving agents"
        time.sleep(0.05)


def open_site_tab(ext: Extension, site: str) -> Page:
    page = ext.context.new_page()
    page.goto(f"{site}/shop?{time.monotonic_ns()}")
    page.bring_to_front()
    return page


def answer_in_popup(popup: Page, decision: str) -> str:
    """The person answers the first request the popup shows; returns what the request said."""
    request = popup.locator("li.approval").first
    request.wait_for()
    text = request.inner_text()
    request.locator(f'button[data-decision="{decision}"]').click()
    return text


def approve_all(ext: Extension, count: int, decision: str = "once") -> list[dict[str, Any]]:
    """The person answers the next `count` requests (through the runtime API, as the popup does)."""
    answered: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + BROWSER_CALL_S  # each request comes from an agent's browser call
    while len(answered) < count:
        assert time.monotonic() < deadline, f"only {len(answered)} of {count} requests came"
        for request in ext.send({"type": "approvals"})["pending"]:
            if request["id"] not in answered:
                assert ext.send({"type": "approval/answer", "id": request["id"], "decision": decision}) == {
                    "ok": True
                }
                answered[request["id"]] = request
        time.sleep(0.05)
    return list(answered.values())


def person_tab_id(ext: Extension, url: str) -> int:
    """The id of the person's tab showing `url` (the person's own calls see every tab)."""
    item = {
        "type": "function_call",
        "name": "browser_tab",
        "arguments": '{"action":"query"}',
        "call_id": "p1",
    }
    tabs = json.loads(unwrapped(ext.dispatch(item)["output"]["output"]))
    return next(int(tab["id"]) for tab in tabs if tab.get("url") == url)


def agent_id(ext: Extension, name: str) -> str:
    # `tabgate-host mcp` starting and saying hello: one start of a server, as an agent's client bounds it.
    deadline = time.monotonic() + server_ready_s(starts=1)
    while True:
        agents = [a for a in ext.send({"type": "agents"})["agents"] if a["name"] == name and a["connected"]]
        if agents:
            return str(agents[0]["id"])
        assert time.monotonic() < deadline, f"agent {name} never connected"
        time.sleep(0.1)


def wait_pending(ext: Extension, timeout: float = BROWSER_CALL_S) -> list[dict[str, Any]]:
    """The requests waiting for the person, once there is one."""
    deadline = time.monotonic() + timeout
    while not (pending := ext.send({"type": "approvals"})["pending"]):
        assert time.monotonic() < deadline, "nobody was asked"
        time.sleep(0.05)
    return list(pending)


def notifications(ext: Extension) -> list[str]:
    """The ids of the Chrome notifications Tabgate shows now."""
    ids: list[str] = ext.page.evaluate("async () => Object.keys(await chrome.notifications.getAll())")
    return ids


def desktop_env(host_env: dict[str, str], folder: Path) -> dict[str, str]:
    """What a Linux desktop gives Chrome and so its host: its own runtime and temporary folders (agents never
    see them: they find the host at the default place)."""
    (folder / "xdg").mkdir(mode=0o700)
    return {**host_env, "XDG_RUNTIME_DIR": str(folder / "xdg"), "TMPDIR": str(folder)}


@contextmanager
def serve_page(html: bytes) -> Iterator[str]:
    """One page served for every path on 127.0.0.1; yields the site's origin."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serve(Page) as origin:
        yield origin


def gateway_profile(pw: Playwright, folder: Path, env: dict[str, str], sites: list[str]) -> Path:
    """A profile with the host installed (no MCP servers) and the person's grant for `sites`."""
    config = folder / "config.toml"
    config.write_text("# no MCP servers\n")
    install_host(folder, config, env=env)
    grant_site_access(pw, folder, sites)
    return folder


# One page for the gateway's end-to-end files: a Buy button that counts its clicks.
BUTTON_TITLE = "Gateway fixture"
BUTTON_PAGE = f"""<!doctype html><title>{BUTTON_TITLE}</title>
<p id="count">clicks: 0</p><button id="buy">Buy</button>
<script>let clicks = 0; document.getElementById("buy").onclick = () => {{
  document.getElementById("count").textContent = "clicks: " + ++clicks; }};</script>""".encode()


# The module fixtures those files share (each imports them by name): the page's site, the desktop's
# environment for the host, and a profile that lets the extension read the site.
@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_page(BUTTON_PAGE) as origin:
        yield origin


@pytest.fixture(scope="module")
def env(host_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return desktop_env(host_env, tmp_path_factory.mktemp("desktop"))


@pytest.fixture(scope="module")
def profile(pw: Playwright, tmp_path_factory: pytest.TempPathFactory, site: str, env: dict[str, str]) -> Path:
    return gateway_profile(pw, tmp_path_factory.mktemp("profile-gateway"), env, [site])
