"""`ServerStatus` is one definition (core.calls.capabilities): every status the host builds is one the core
reads
whole, and one the core refuses is left out and logged, never fatal."""

from __future__ import annotations

import pytest

from core.calls.capabilities import ServerStatus
from core.host_link.servers import parse_statuses, why_down
from native_host.config.preview import preview_status

pytestmark = pytest.mark.unit

EVERY_KEY = ServerStatus(
    name="remote",
    transport="streamable_http",
    status="restarting",
    toolTimeoutSec=30.0,
    startupTimeoutSec=10.0,
    error="connection refused",
    retryInMs=2000,
    restarts=3,
    tools=4,
    toolsVersion=2,
    capabilities={"tools": {"listChanged": True}},
    auth="required",
    scope="files:read",
    signInError="the page was closed",
)


def test_the_core_reads_a_status_with_every_key_the_host_sends_unchanged() -> None:
    assert parse_statuses([EVERY_KEY]) == (EVERY_KEY,)


def test_the_core_reads_the_hosts_first_look_at_the_config() -> None:
    status = preview_status("notes", {"command": "python", "tool_timeout_sec": 5})
    assert parse_statuses([status]) == (status,)


def test_a_status_the_core_refuses_is_left_out_and_the_rest_kept(caplog: pytest.LogCaptureFixture) -> None:
    broken = {"name": "x", "transport": "stdio", "status": "sleeping"}
    assert parse_statuses([broken, EVERY_KEY]) == (EVERY_KEY,)
    assert "ignoring an invalid server status" in caplog.text


def test_why_a_server_is_down_comes_from_its_status() -> None:
    assert why_down(EVERY_KEY) == "server 'remote' is unavailable: connection refused; restarting in 2 s"
