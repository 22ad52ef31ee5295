"""The walking skeleton end to end: extension id, Python boot, host status, a round trip, worker restarts."""

from __future__ import annotations

import pytest

from native_host.identity import HOST_NAME
from tests.support.browser import Extension
from tests.support.project import load_build

pytestmark = pytest.mark.e2e


def test_extension_id_is_the_one_derived_from_the_key(ext_without_host: Extension) -> None:
    assert ext_without_host.id == load_build().extension_id()


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
