"""The person's per-server switch (`servers/setEnabled`, issue 13): the config file says it, with the rest of
the user's text kept byte for byte, and the running host applies it at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HostDirs, running_host, stdio_server
from hostproc import HostError, HostProcess

pytestmark = pytest.mark.host

HEAD = "# my servers, by hand\n"


def statuses(host: HostProcess) -> dict[str, str]:
    return {s["name"]: s["status"] for s in host.call("servers/list")["servers"]}


def tool_servers(host: HostProcess) -> set[str]:
    return {tool["server"] for tool in host.call("tools/list")["tools"]}


def test_a_server_switched_off_stops_and_comes_back_when_switched_on(tmp_path: Path) -> None:
    dirs = HostDirs.under(tmp_path)
    config = HEAD + stdio_server("live", "live_server.py") + "\n" + stdio_server("other", "live_server.py")
    with running_host(dirs, config) as host:
        host.initialize()
        host.wait_ready("live", "other")
        assert tool_servers(host) == {"live", "other"}

        assert host.call("servers/setEnabled", {"server": "live", "enabled": False}) == {
            "server": "live",
            "enabled": False,
        }
        assert statuses(host) == {"live": "disabled", "other": "ready"}
        assert tool_servers(host) == {"other"}
        with pytest.raises(HostError, match="disabled in the config"):
            host.call(
                "tools/call", {"server": "live", "tool": "say", "arguments": {"level": "info", "text": "x"}}
            )
        written = dirs.config.read_text()
        assert written.startswith(HEAD) and "enabled = false" in written
        assert written.replace("enabled = false\n", "") == config

        host.call("servers/setEnabled", {"server": "live", "enabled": True})
        host.wait_ready("live")
        assert tool_servers(host) == {"live", "other"}
        assert "enabled = true" in dirs.config.read_text()


def test_an_unknown_server_or_a_bad_switch_changes_nothing(tmp_path: Path) -> None:
    dirs = HostDirs.under(tmp_path)
    with running_host(dirs, HEAD + stdio_server("live", "live_server.py")) as host:
        host.initialize()
        before = dirs.config.read_text()
        with pytest.raises(HostError) as unknown:
            host.call("servers/setEnabled", {"server": "nope", "enabled": False})
        assert unknown.value.code == -32011
        with pytest.raises(HostError) as bad:
            host.call("servers/setEnabled", {"server": "live", "enabled": "no"})
        assert bad.value.code == -32602 and "enabled" in bad.value.message
        assert dirs.config.read_text() == before
