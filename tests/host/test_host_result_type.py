"""A 2026-07-28 server whose results leave out `resultType` (the spec: absent means "complete"), reached
through a real host: `servers/bare_2026_server.py`, written by hand since the SDK's servers always say it. It
is ready on the default handshake, lists its tool and answers a call."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HostDirs, running_host, toml_str

from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host


def test_results_without_result_type_are_complete(tmp_path: Path) -> None:
    with serving("bare_2026_server.py", "http") as origin:
        config = f"[mcp_servers.bare]\nurl = {toml_str(endpoint(origin, 'http'))}\n"
        with running_host(HostDirs.under(tmp_path), config) as host:
            host.initialize()
            status = host.wait_ready("bare")["bare"]
            assert status["status"] == "ready", status
            tools = host.call("tools/list", {"server": "bare"})["tools"]
            assert [tool["name"] for tool in tools] == ["echo"]
            answer = host.call("tools/call", {"server": "bare", "tool": "echo", "arguments": {"text": "hi"}})
            assert answer["content"] == [{"type": "text", "text": "hi"}] and answer["isError"] is False
