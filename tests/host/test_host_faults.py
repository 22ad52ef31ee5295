"""Faults: servers that die, hang or are missing, bad config, and fuzzed frames; the host carries on."""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HostDirs, running_host, stdio_server, toml_str
from hostproc import HostError, HostProcess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_host.process.jsonrpc import CANCEL_METHOD
from native_host.process.method_table import METHODS

pytestmark = pytest.mark.host

SILENT = Path(__file__).parent / "servers" / "silent_server.py"


def status_of(host: HostProcess, name: str, state: str) -> dict[str, object]:
    servers = host.wait_servers(lambda s: s.get(name, {}).get("status") == state)
    return servers[name]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_server_killed_mid_call(host_dirs: HostDirs) -> None:
    config = stdio_server("victim", "demo_server.py") + stdio_server("bystander", "demo_server.py")
    with running_host(host_dirs, config) as host:
        host.initialize()
        host.wait_ready("victim", "bystander")
        pid = host.call("tools/call", {"server": "victim", "tool": "pid"})["structuredContent"]["result"]
        pending = host.submit(
            "tools/call", {"server": "victim", "tool": "slow", "arguments": {"seconds": 60}}
        )
        host.wait_for(lambda notes: any(n["method"] == "notifications/progress" for n in notes))
        os.kill(pid, signal.SIGKILL)
        response = pending.result(30)
        assert response["error"]["code"] == -32000 and response["error"]["data"]["server"] == "victim"
        assert response["error"]["message"].startswith("server 'victim' is unavailable: connection closed")
        bystander = host.call(
            "tools/call", {"server": "bystander", "tool": "echo", "arguments": {"text": "fine"}}
        )
        assert bystander["content"][0]["text"] == "fine"
        # It comes back by itself.
        status_of(host, "victim", "ready")
        again = host.call("tools/call", {"server": "victim", "tool": "pid"})["structuredContent"]["result"]
        assert again != pid


def test_a_server_exiting_inside_a_call(host_dirs: HostDirs) -> None:
    with running_host(host_dirs, stdio_server("fragile", "demo_server.py")) as host:
        host.wait_ready("fragile")
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "fragile", "tool": "crash"})
        assert caught.value.code == -32000
        status_of(host, "fragile", "ready")
        assert (
            host.call("tools/call", {"server": "fragile", "tool": "add", "arguments": {"a": 1, "b": 2}})[
                "isError"
            ]
            is False
        )


def test_a_server_that_never_answers_times_out_with_advice(host_dirs: HostDirs) -> None:
    config = (
        f"[mcp_servers.mute]\ncommand = {toml_str(os.sys.executable)}\nargs = [{toml_str(SILENT)}]\n"
        "startup_timeout_sec = 0.5\n" + stdio_server("fine", "demo_server.py")
    )
    with running_host(host_dirs, config) as host:
        mute = status_of(host, "mute", "restarting")
        assert "timed out after 0.5 seconds" in str(mute["error"]) and "startup_timeout_sec" in str(
            mute["error"]
        )
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "mute", "tool": "x"})
        assert caught.value.code == -32000 and "startup_timeout_sec" in caught.value.message
        host.wait_ready("fine")


def test_a_missing_command_is_named(host_dirs: HostDirs) -> None:
    config = '[mcp_servers.ghost]\ncommand = "tabgate-no-such-command"\n'
    with running_host(host_dirs, config) as host:
        ghost = status_of(host, "ghost", "failed")
        assert "command not found: tabgate-no-such-command" in str(ghost["error"])
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "ghost", "tool": "x"})
        assert "tabgate-no-such-command" in caught.value.message


def test_invalid_config_is_reported_and_valid_servers_still_served(host_dirs: HostDirs) -> None:
    config = (
        stdio_server("good", "demo_server.py")
        + '[mcp_servers.typo]\ncomand = "x"\n\n[mcp_servers.both]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n'
        + '[mcp_servers.tokenless]\nurl = "http://127.0.0.1:1/mcp"\n'
        + 'bearer_token_env_var = "TABGATE_TEST_UNSET"\n'
    )
    with running_host(host_dirs, config) as host:
        servers = host.wait_ready("good")
        assert servers["typo"]["status"] == "failed"
        assert str(host_dirs.config) in servers["typo"]["error"] and "comand" in servers["typo"]["error"]
        assert "[mcp_servers.typo]" in servers["typo"]["error"]
        assert "`url` is not supported for stdio" in servers["both"]["error"]
        tokenless = status_of(host, "tokenless", "failed")  # no retry can set the variable
        assert "Environment variable TABGATE_TEST_UNSET for MCP server 'tokenless' is not set" in str(
            tokenless["error"]
        )


def test_eof_with_calls_in_flight_exits_0_and_stops_servers(host_dirs: HostDirs) -> None:
    with running_host(host_dirs, stdio_server("demo", "demo_server.py")) as host:
        host.wait_ready("demo")
        pid = host.call("tools/call", {"server": "demo", "tool": "pid"})["structuredContent"]["result"]
        host.submit("tools/call", {"server": "demo", "tool": "slow", "arguments": {"seconds": 60}})
        assert host.close() == 0
    deadline = time.monotonic() + 20
    while pid_alive(pid):
        assert time.monotonic() < deadline, "the MCP server outlived the host"
        time.sleep(0.05)


# -- fuzzing ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    dirs = HostDirs.under(tmp_path_factory.mktemp("fuzz"))
    with running_host(dirs, stdio_server("demo", "demo_server.py")) as host:
        host.unsolicited = []  # fuzzed requests carry ids of their own; their answers are fine
        host.wait_ready("demo")
        yield host


# Every method of the host's one table, a notification, and one it does not know.
FUZZED_METHODS = [*sorted(METHODS), CANCEL_METHOD, "x/y"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": st.one_of(
            st.integers(), st.text(max_size=6), st.none(), st.booleans(), st.floats(allow_nan=False)
        ),
        "method": st.one_of(st.sampled_from(FUZZED_METHODS), st.text(max_size=10), st.integers()),
        "params": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {},
                optional={
                    "server": st.sampled_from(["demo", "nope", ""]) | st.integers(),
                    "tool": st.sampled_from(["echo", "add", "nope"]) | json_values,
                    "arguments": json_values,
                    "cursor": json_values,
                    "uri": json_values,
                    "id": json_values,
                    "timeoutMs": st.integers(min_value=-5, max_value=5000) | json_values,
                },
            ),
        ),
    },
)
bodies = st.one_of(
    st.binary(max_size=200),
    messages.map(lambda m: json.dumps(m).encode()),
    st.text(max_size=100).map(str.encode),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(bodies, min_size=1, max_size=5))
def test_fuzzed_frames_never_break_the_host(fuzz_host: HostProcess, batch: list[bytes]) -> None:
    for body in batch:
        fuzz_host.send_raw(struct.pack("=I", len(body)) + body)
    assert fuzz_host.call("ping", timeout=60) == {}
    assert fuzz_host.process.poll() is None
    assert fuzz_host.violations == []


def test_fuzzed_host_still_serves_and_exits_cleanly(fuzz_host: HostProcess) -> None:
    result = fuzz_host.call("tools/call", {"server": "demo", "tool": "echo", "arguments": {"text": "alive"}})
    assert result["content"][0]["text"] == "alive"
