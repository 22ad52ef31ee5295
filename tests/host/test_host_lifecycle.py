"""Server lifecycle (contract §4): servers come back by themselves, their tools stay listed while they are
down, listings never wait for a starting server, each timeout governs what it names, secrets stay out of
errors, and a request the browser gives up on stops at the server."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVERS, HostDirs, running_host, stdio_server, toml_str
from hostproc import HostError, HostProcess

from native_host.config.redact import Scrubber, scrub_data
from native_host.servers.connection import retry_delay
from native_host.servers.transports import url_secrets
from tests.support.bounds import server_ready_s
from tests.support.http_servers import free_port

pytestmark = pytest.mark.host

SILENT = SERVERS / "silent_server.py"
QUICK = 15.0  # seconds a request may take here before the test calls it stuck (a hung server is a day)


def status(host: HostProcess, name: str) -> dict[str, Any]:
    servers = {s["name"]: s for s in host.call("servers/list")["servers"]}
    return servers[name]


def wait_until(predicate: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def first_two_backoffs(host: HostProcess, name: str) -> list[dict[str, Any]]:
    """The first two distinct `restarting` statuses of `name` that announced a next start (retryInMs)."""

    def found(notes: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        seen: list[dict[str, Any]] = []
        for note in notes:
            if note["method"] != "notifications/servers":
                continue
            for server in note["params"]["servers"]:
                if server["name"] == name and "retryInMs" in server and server not in seen:
                    seen.append(server)
        return seen[:2] if len(seen) >= 2 else None

    backoffs: list[dict[str, Any]] = host.wait_for(found)
    return backoffs


def test_a_killed_server_comes_back_by_itself_and_its_tools_stay_listed(host_dirs: HostDirs) -> None:
    # The victim takes a while to start, so its restart is still under way when the call below is made.
    config = stdio_server(
        "victim", "demo_server.py", extra='env = { DEMO_START_DELAY = "1.5" }\nstartup_timeout_sec = 90'
    ) + stdio_server("bystander", "demo_server.py")
    with running_host(host_dirs, config) as host:
        host.initialize()
        host.wait_ready("victim", "bystander", timeout=server_ready_s(90))
        pid = host.call("tools/call", {"server": "victim", "tool": "pid"})["structuredContent"]["result"]
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        down = host.wait_servers(lambda s: s["victim"]["status"] == "restarting", timeout=QUICK)["victim"]
        assert down["error"].startswith("connection closed") and down["restarts"] == 1
        assert down["toolTimeoutSec"] == 60 and down["startupTimeoutSec"] == 90

        tools = host.call("tools/list", timeout=QUICK)["tools"]
        victim = {t["name"]: t["available"] for t in tools if t["server"] == "victim"}
        assert {"echo", "pid", "slow"} <= set(victim) and not any(victim.values())
        assert all(t["available"] for t in tools if t["server"] == "bystander")
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "victim", "tool": "pid"}, timeout=QUICK)
        assert caught.value.code == -32000 and caught.value.data == {"server": "victim"}
        assert caught.value.message.startswith("server 'victim' is unavailable: connection closed")
        assert "; restarting " in caught.value.message

        # Nobody calls: the host starts it again on its own.
        host.wait_servers(lambda s: s["victim"]["status"] == "ready", timeout=server_ready_s(90))
        print(f"killed server ready again after {time.monotonic() - killed:.2f} s")
        again = host.call("tools/call", {"server": "victim", "tool": "pid"})["structuredContent"]["result"]
        assert again != pid
        tools = host.call("tools/list", {"server": "victim"})["tools"]
        assert tools and all(t["available"] for t in tools)


def test_a_server_that_keeps_exiting_backs_off_longer_each_time(host_dirs: HostDirs) -> None:
    config = stdio_server("flaky", "demo_server.py", extra='env = { DEMO_EXIT_AFTER = "0.2" }')
    with running_host(host_dirs, config) as host:
        host.initialize()
        first, second = first_two_backoffs(host, "flaky")
        assert (first["restarts"], second["restarts"]) == (1, 2)
        longest_first, longest_second = (retry_delay(n, jitter=1.0) * 1000 for n in (1, 2))
        assert 0 < first["retryInMs"] <= longest_first < second["retryInMs"] <= longest_second
        assert first["error"] and second["error"]


def test_a_server_whose_process_exits_at_start_keeps_being_retried(host_dirs: HostDirs) -> None:
    # The command is there and runs, but exits at once: that may mend itself (contract §4), so backoff.
    config = (
        f'[mcp_servers.ghost]\ncommand = {toml_str(sys.executable)}\nargs = ["-c", "raise SystemExit(3)"]\n'
    )
    with running_host(host_dirs, config) as host:
        host.initialize()
        first, second = first_two_backoffs(host, "ghost")
        assert "failed to start" in first["error"] and first["status"] == "restarting"
        assert first["retryInMs"] < second["retryInMs"] and second["restarts"] == 2
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "ghost", "tool": "x"}, timeout=QUICK)
        message = caught.value.message
        assert message.startswith("server 'ghost' is unavailable: ") and "; restarting " in message


def test_a_hung_server_holds_up_no_listing_and_no_other_server(host_dirs: HostDirs) -> None:
    config = (
        f"[mcp_servers.hung]\ncommand = {toml_str(sys.executable)}\nargs = [{toml_str(SILENT)}]\n"
        "startup_timeout_sec = 86400\n\n" + stdio_server("fine", "demo_server.py")
    )
    with running_host(host_dirs, config) as host:
        host.initialize()
        host.wait_servers(lambda s: s["fine"]["status"] == "ready")

        tools = host.call("tools/list", timeout=QUICK)["tools"]
        assert {t["server"] for t in tools} == {"fine"}
        assert host.call("tools/list", {"server": "hung"}, timeout=QUICK) == {"tools": []}
        for method, key in (
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ):
            listing = host.call(method, timeout=QUICK)
            assert {item["server"] for item in listing[key]} == {"fine"}
            assert [f["server"] for f in listing["failedServers"]] == ["hung"]
            assert "starting" in listing["failedServers"][0]["message"]
        assert {p["server"] for p in host.call("prompts/list", timeout=QUICK)["prompts"]} == {"fine"}
        with pytest.raises(HostError) as caught:
            host.call("resources/list", {"server": "hung"}, timeout=QUICK)
        assert caught.value.code == -32000 and caught.value.data == {"server": "hung"}
        echoed = host.call("tools/call", {"server": "fine", "tool": "echo", "arguments": {"text": "on"}})
        assert echoed["content"][0]["text"] == "on"

        # A call to the hung server waits for its start; the browser giving up ends the wait.
        waiting = host.submit("tools/call", {"server": "hung", "tool": "x"}, id="gave-up")
        time.sleep(0.3)
        host.cancel("gave-up")
        assert waiting.result(QUICK)["error"]["code"] == -32800
        assert status(host, "hung")["status"] == "starting"


def test_startup_timeout_governs_the_handshake_and_tool_timeout_the_calls(host_dirs: HostDirs) -> None:
    config = stdio_server(
        "sluggish",
        "demo_server.py",
        extra='env = { DEMO_START_DELAY = "1.5" }\nstartup_timeout_sec = 60\ntool_timeout_sec = 0.5',
    )
    with running_host(host_dirs, config) as host:
        host.initialize()
        sluggish = host.wait_servers(
            lambda s: s["sluggish"]["status"] != "starting", timeout=server_ready_s(60)
        )["sluggish"]
        assert sluggish["status"] == "ready", sluggish
        assert (sluggish["startupTimeoutSec"], sluggish["toolTimeoutSec"]) == (60, 0.5)
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "sluggish", "tool": "slow", "arguments": {"seconds": 5}})
        assert caught.value.code == -32001 and "0.5 s" in caught.value.message


def test_secrets_stay_out_of_error_data_statuses_and_logs(host_dirs: HostDirs) -> None:
    secret, password, query = "hunter2-env-secret", "pw-url-secret-42", "qs-url-secret-77"
    remote = f"http://tabgate:{password}@127.0.0.1:{free_port()}/mcp?key={query}"
    config = stdio_server(
        "leaky", "demo_server.py", extra=f"env = {{ DEMO_SECRET = {toml_str(secret)} }}"
    ) + (f"[mcp_servers.remote]\nurl = {toml_str(remote)}\nstartup_timeout_sec = 2\n")
    with running_host(host_dirs, config) as host:
        host.initialize()
        host.wait_servers(lambda s: s["leaky"]["status"] == "ready" and s["remote"]["status"] != "starting")
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "leaky", "tool": "leak"})
        error = caught.value
        assert error.code == -32050 and error.message == "refused with [redacted]"
        assert error.data == {"echo": "[redacted]", "list": ["x[redacted]x"], "server": "leaky"}
        with pytest.raises(HostError) as caught:
            host.call("tools/call", {"server": "remote", "tool": "x"}, timeout=QUICK)
        sent = json.dumps(
            [host.notifications, caught.value.message, caught.value.data, host.call("servers/list")]
        )
        logs = "".join(path.read_text(errors="replace") for path in host_dirs.logs.rglob("*.log*"))
        for value in (secret, password, query):
            assert value not in sent and value not in logs and value not in host.stderr


def test_a_cancelled_listing_or_read_stops_at_the_server(host_dirs: HostDirs, tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    with running_host(host_dirs, stdio_server("slow", "slow_lists_server.py", str(markers))) as host:
        host.initialize()
        host.wait_ready("slow")
        for method, params, marker in (
            ("resources/list", {"server": "slow"}, "resources-list"),
            ("resources/templates/list", {}, "templates-list"),  # the all-servers form
            ("resources/read", {"server": "slow", "uri": "slow://x"}, "resources-read"),
            ("prompts/list", {"server": "slow"}, "prompts-list"),
        ):
            pending = host.submit(method, params, id=f"cancel-{marker}")
            wait_until((markers / f"started-{marker}").exists, f"{method} to reach the server")
            host.cancel(f"cancel-{marker}")
            assert pending.result(QUICK)["error"]["code"] == -32800
            wait_until((markers / f"cancelled-{marker}").exists, f"the server to see {method} cancelled")
        assert host.call("tools/call", {"server": "slow", "tool": "quick"})["isError"] is False


def test_backoff_doubles_from_1_s_up_to_60_s() -> None:
    assert [retry_delay(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert retry_delay(10_000) == 60


def test_servers_that_failed_together_do_not_all_start_again_together() -> None:
    """Each wait is lengthened by up to a quarter of itself, so starts spread apart, never shorter."""
    assert [retry_delay(3, jitter) for jitter in (0.0, 0.5, 1.0)] == [4, 4.5, 5]
    assert retry_delay(10_000, 1.0) == 75


def test_url_passwords_and_query_values_count_as_secrets() -> None:
    found = url_secrets("https://me:p%40ss-word@example.com/mcp?token=t0k3n&x=")
    assert {"p%40ss-word", "p@ss-word", "t0k3n"} <= set(found) and "" not in found
    assert url_secrets("https://example.com/mcp") == []


def test_error_data_is_scrubbed_all_the_way_down() -> None:
    scrub = Scrubber(["s3cret"])
    data = {"a": ["x s3cret y", {"s3cret": 1, "n": None}], "b": 2}
    assert scrub_data(data, scrub) == {"a": ["x [redacted] y", {"[redacted]": 1, "n": None}], "b": 2}
