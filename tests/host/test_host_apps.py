"""MCP Apps through the host (contract §10): it advertises `io.modelcontextprotocol/ui` to servers, passes a
tool's `_meta.ui` on in `tools/list`, and reads the `ui://` resource, against the bundled App server (written
with the SDK's `Apps()`, tests/e2e/servers/app_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PYTHON, HostDirs, running_host, toml_str

pytestmark = pytest.mark.host

APP_SERVER = Path(__file__).resolve().parents[1] / "e2e" / "servers" / "app_server.py"
VIEW = "ui://counter/view.html"


@pytest.mark.parametrize("handshake", ["auto", "legacy"])
def test_the_host_advertises_apps_and_passes_meta_ui_through(tmp_path: Path, handshake: str) -> None:
    config = (
        f"[mcp_servers.counter]\ncommand = {toml_str(PYTHON)}\nargs = [{toml_str(APP_SERVER)}]\n"
        f'handshake = "{handshake}"\n'
    )
    with running_host(HostDirs.under(tmp_path), config) as host:
        host.initialize()
        host.wait_ready("counter")
        tools = {tool["name"]: tool for tool in host.call("tools/list", {"server": "counter"})["tools"]}
        assert tools["counter"]["ui"] == {"resourceUri": VIEW}
        assert tools["bump"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
        assert "ui" not in tools["apps_negotiated"]
        negotiated = host.call(
            "tools/call", {"server": "counter", "tool": "apps_negotiated", "arguments": {}}
        )
        # The SDK sends extensions with `server/discover`: a 2026-07-28 connection only (handshake "auto").
        assert negotiated["content"][0]["text"] == "yes"
        [view] = host.call("resources/read", {"server": "counter", "uri": VIEW})["contents"]
        assert view["mimeType"] == "text/html;profile=mcp-app"
        assert view["_meta"]["ui"]["csp"] == {"connectDomains": ["https://api.example.test"]}
