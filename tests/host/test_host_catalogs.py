"""Live catalogs and server logs: one that adds a tool, changes its lists and logs, through a real host."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import HostDirs, running_host, stdio_server
from hostproc import HostError, HostProcess

pytestmark = pytest.mark.host

SECRET = "live-secret-value-7"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    dirs = HostDirs.under(tmp_path_factory.mktemp("catalogs"))
    config = stdio_server("live", "live_server.py", extra=f'env = {{ LIVE_TOKEN = "{SECRET}" }}')
    with running_host(dirs, config) as host:
        host.initialize()
        host.wait_ready("live")
        yield host


def _notes(host: HostProcess, method: str) -> list[dict[str, Any]]:
    return [note["params"] for note in host.notifications if note["method"] == method]


def _tool_names(host: HostProcess) -> set[str]:
    return {tool["name"] for tool in host.call("tools/list", {"server": "live"})["tools"]}


def test_a_tool_added_at_run_time_is_listed_callable_and_announced(host: HostProcess) -> None:
    assert "sprout" not in _tool_names(host)

    assert (
        host.call("tools/call", {"server": "live", "tool": "grow", "arguments": {"name": "sprout"}})[
            "isError"
        ]
        is False
    )

    host.wait_for(lambda notes: {"server": "live"} in _notes(host, "notifications/tools/list_changed"))
    listed = {tool["name"]: tool for tool in host.call("tools/list", {"server": "live"})["tools"]}
    assert listed["sprout"]["title"] == "Grown sprout"
    assert listed["sprout"]["available"] is True
    result = host.call("tools/call", {"server": "live", "tool": "sprout", "arguments": {}})
    assert result["content"][0]["text"] == "grown:sprout"
    # The status says so too (the browser refetches its tool table on status changes).
    status = {s["name"]: s for s in host.call("servers/list")["servers"]}["live"]
    assert status["tools"] == len(listed)
    assert status["toolsVersion"] >= 1


def test_resource_and_prompt_list_changes_reach_the_browser(host: HostProcess) -> None:
    for kind in ("resources", "prompts"):
        host.call("tools/call", {"server": "live", "tool": "touch", "arguments": {"kind": kind}})
        host.wait_for(
            lambda notes, kind=kind: {"server": "live"} in _notes(host, f"notifications/{kind}/list_changed")
        )


def test_server_log_messages_are_kept_scrubbed_and_forwarded(host: HostProcess) -> None:
    host.call(
        "tools/call",
        {"server": "live", "tool": "say", "arguments": {"level": "warning", "text": f"token {SECRET} here"}},
    )
    forwarded = host.wait_for(
        lambda notes: [n for n in _notes(host, "notifications/serverLog") if "token" in n["data"]]
    )
    assert forwarded[0]["server"] == "live"
    assert forwarded[0]["level"] == "warning"
    assert SECRET not in forwarded[0]["data"]

    logs = host.call("servers/logs", {"server": "live"})
    assert logs["server"] == "live"
    entry = [e for e in logs["logs"] if "token" in e["data"]][-1]
    assert entry["level"] == "warning"
    assert entry["logger"] == "live"
    assert entry["data"].startswith("token ") and entry["data"].endswith(" here #0")
    assert SECRET not in entry["data"]
    assert isinstance(entry["at"], int)


def test_server_logs_keep_only_the_last_200(host: HostProcess) -> None:
    host.call(
        "tools/call",
        {"server": "live", "tool": "say", "arguments": {"level": "info", "text": "flood", "count": 230}},
    )
    host.wait_for(
        lambda notes: any(n["data"] == "flood #229" for n in _notes(host, "notifications/serverLog"))
    )
    logs = host.call("servers/logs", {"server": "live"})["logs"]
    assert len(logs) == 200
    assert logs[-1]["data"] == "flood #229"
    assert logs[0]["data"] == "flood #30"


def test_server_logs_of_an_unknown_server_is_an_error(host: HostProcess) -> None:
    with pytest.raises(HostError) as error:
        host.call("servers/logs", {"server": "nope"})
    assert error.value.code == -32011
    with pytest.raises(HostError) as missing:
        host.call("servers/logs", {})
    assert missing.value.code == -32602
