"""The walking skeleton end to end: extension id, Python boot, host status, a round trip, worker restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from buildsys.identity import extension_id
from native_host.config.identity import HOST_NAME
from tests.support.browser import Extension, install_host, launch

pytestmark = pytest.mark.e2e


def test_extension_id_is_the_one_derived_from_the_key(ext_without_host: Extension) -> None:
    assert ext_without_host.id == extension_id()


def test_python_reaches_ready_in_the_offscreen_document(ext_without_host: Extension) -> None:
    status = ext_without_host.send({"type": "status"})
    assert status["python"] == "ready"
    assert status["bootMs"] > 0


def test_status_says_not_installed_without_the_host(ext_without_host: Extension) -> None:
    status = ext_without_host.send({"type": "status"})
    assert status["host"] == "not_installed"
    assert status["hostError"] == "Specified native messaging host not found."
    assert status["mcpTools"] is False
    assert status["servers"] == []


def test_status_says_connected_with_the_host_installed(ext_with_host: Extension) -> None:
    status = ext_with_host.send({"type": "status"})
    assert status["host"] == "connected", status
    assert status["hostInfo"]["name"] == HOST_NAME


def test_initialize_round_trip_through_the_service_worker(ext_with_host: Extension) -> None:
    answer = ext_with_host.send(
        {"type": "host/request", "method": "initialize",
         "params": {"client": {"name": "e2e", "version": "0"}, "protocolVersion": "1"}}
    )  # fmt: skip
    assert answer["result"]["protocolVersion"] == "1"
    assert answer["result"]["host"]["name"] == HOST_NAME
    assert answer["result"]["servers"] == []
    assert ext_with_host.send({"type": "host/request", "method": "ping"}) == {"result": {}}


def test_unknown_host_method_comes_back_as_a_json_rpc_error(ext_with_host: Extension) -> None:
    answer = ext_with_host.send({"type": "host/request", "method": "no/such/method"})
    assert answer["error"]["code"] == -32601


@pytest.mark.parametrize("fixture", ["ext_without_host", "ext_with_host"])
def test_python_stays_warm_across_a_forced_service_worker_stop(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    ext: Extension = request.getfixturevalue(fixture)
    before = ext.send({"type": "status"})
    ext.stop_service_worker()
    after = ext.send({"type": "status"})
    assert after["python"] == "ready"
    assert after["bootedAt"] == before["bootedAt"], "Python re-booted after the worker restart"
    assert after["host"] == before["host"]


def test_a_host_that_does_not_list_this_extension_shows_as_forbidden(
    pw: Playwright, tmp_path: Path, host_env: dict[str, str]
) -> None:
    # What users of the peers hit most: a manifest whose allowed_origins names another extension id.
    profile = tmp_path / "profile"
    install_host(profile, tmp_path / "config.toml", env=host_env)
    manifest_file = profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["allowed_origins"] = ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"]
    manifest_file.write_text(json.dumps(manifest))
    with launch(pw, profile, env=host_env) as ext:
        status = ext.wait_python_ready()
        assert status["host"] == "forbidden"
        assert status["hostError"] == "Access to the specified native messaging host is forbidden."
        answer = ext.dispatch(
            {"type": "function_call", "name": "mcp__notes__add_note", "arguments": "{}", "call_id": "f-1"}
        )
        assert answer["output"]["output"] == (
            "MCP tools not supported in browser extension. Tool 'mcp__notes__add_note' not found."
        )
