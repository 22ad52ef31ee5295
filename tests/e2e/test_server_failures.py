"""A server that cannot start by itself, as a person meets it in the popup (contract §4, failure classes): it
is `failed` with what to fix and not retried in a loop; once the person fixes it, *Retry* starts it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect

from tests.support.bounds import server_ready_s
from tests.support.browser import launch_with_mcp

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[1] / "host" / "servers" / "demo_server.py"


def test_a_server_whose_command_is_missing_is_failed_with_the_fix_and_retry_starts_it_once_fixed(
    pw: Playwright, tmp_path: Path, host_env: dict[str, str]
) -> None:
    command = tmp_path / "bin" / "later-server"  # not there yet
    config = f"[mcp_servers.later]\ncommand = {json.dumps(str(command))}\n"
    (tmp_path / "run").mkdir()
    with launch_with_mcp(pw, tmp_path / "run", config, host_env) as ext:
        popup = ext.context.new_page()
        popup.goto(f"chrome-extension://{ext.id}/ui/popup.html")
        retry = popup.get_by_role("button", name="Retry later")
        expect(retry).to_be_visible()
        [later] = [s for s in ext.send({"type": "status"})["servers"] if s["name"] == "later"]
        assert later["status"] == "failed" and str(command) in later["error"]
        assert "retryInMs" not in later  # not retried in a loop
        command.parent.mkdir()
        command.write_text(f"#!/bin/sh\nexec {json.dumps(sys.executable)} {json.dumps(str(DEMO))}\n")
        command.chmod(0o755)
        retry.click()
        expect(retry).to_be_hidden()
        deadline = time.monotonic() + server_ready_s()
        while "mcp__later__echo" not in {tool["name"] for tool in ext.send({"type": "tools"})["tools"]}:
            assert time.monotonic() < deadline, "the fixed server's tools never came"
            time.sleep(0.2)
