"""Failure classes (contract §4, issue 19): what cannot mend itself is `failed` at once with what to fix,
never retried in a loop, and tried again on `servers/restart`; what may mend itself stays `restarting`. And
`handshake = "auto"` reaches initialize-only servers on every transport as `legacy` does."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest
from conftest import PYTHON, SERVERS, HostDirs, demo_over_http, running_host, stdio_server, toml_str
from hostproc import HostError, HostProcess

from native_host.servers.failures import Cause, Mend, classify, refuses_for_good
from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host

QUICK = 15.0


def settled(host: HostProcess, name: str, state: str) -> dict[str, Any]:
    return host.wait_servers(lambda s: s.get(name, {}).get("status") == state)[name]


def assert_failed_for_good(host: HostProcess, name: str, *fix: str) -> dict[str, Any]:
    """`failed` with the fix, no backoff announced, and still so a while later (no retry loop)."""
    status = settled(host, name, "failed")
    assert all(part in status["error"] for part in fix), status
    assert "retryInMs" not in status and not status.get("restarts"), status
    time.sleep(1.5)  # a retry loop would have restarted it within 1 s
    again = {s["name"]: s for s in host.call("servers/list")["servers"]}[name]
    assert again == status
    seen = [
        server
        for note in host.notifications
        if note["method"] == "notifications/servers"
        for server in note["params"]["servers"]
        if server["name"] == name
    ]
    assert all(server["status"] in ("starting", "failed") for server in seen), seen
    with pytest.raises(HostError) as caught:
        host.call("tools/call", {"server": name, "tool": "x"}, timeout=QUICK)
    assert caught.value.code == -32000 and "restarting" not in caught.value.message
    return status


def test_a_missing_command_fails_at_once_with_the_fix(host_dirs: HostDirs) -> None:
    missing = host_dirs.root / "bin" / "no-such-server"
    config = (
        '[mcp_servers.ghost]\ncommand = "tabgate-no-such-command"\n\n'
        f"[mcp_servers.gone]\ncommand = {toml_str(missing)}\n\n" + stdio_server("fine", "demo_server.py")
    )
    with running_host(host_dirs, config) as host:
        host.initialize()
        assert_failed_for_good(
            host, "ghost", "command not found: tabgate-no-such-command", "use an absolute path in `command`"
        )
        assert_failed_for_good(host, "gone", f"command not found: {missing}", "fix `command`")
        host.wait_ready("fine")


def test_a_command_that_is_not_executable_fails_at_once_with_the_fix(host_dirs: HostDirs) -> None:
    script = host_dirs.root / "server.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    with running_host(host_dirs, f"[mcp_servers.plain]\ncommand = {toml_str(script)}\n") as host:
        host.initialize()
        assert_failed_for_good(host, "plain", f"command not executable: {script}", "chmod +x")


@pytest.mark.parametrize("mode", ["http", "sse"])
def test_an_http_endpoint_that_is_not_there_fails_at_once_with_the_fix(
    host_dirs: HostDirs, mode: str
) -> None:
    with demo_over_http(mode) as url:
        wrong = url.rsplit("/", 1)[0] + "/no-such-endpoint"
        transport = "sse" if mode == "sse" else "streamable_http"
        config = f'[mcp_servers.lost]\nurl = {toml_str(wrong)}\ntransport = "{transport}"\n'
        with running_host(host_dirs, config) as host:
            host.initialize()
            assert_failed_for_good(host, "lost", "HTTP 404", "check `url`")


def test_a_resource_mismatch_in_oauth_metadata_fails_at_once(host_dirs: HostDirs) -> None:
    with serving("legacy_server.py", "http-wrong-resource") as origin:
        config = f"[mcp_servers.elsewhere]\nurl = {toml_str(origin + '/mcp')}\nstartup_timeout_sec = 30\n"
        with running_host(host_dirs, config) as host:
            host.initialize()
            status = assert_failed_for_good(host, "elsewhere", "OAuth", "does not match")
            assert status.get("auth") != "required"


def test_a_server_that_crashes_at_start_is_still_restarting(host_dirs: HostDirs) -> None:
    config = (
        f'[mcp_servers.crash]\ncommand = {toml_str(sys.executable)}\nargs = ["-c", "raise SystemExit(3)"]\n'
    )
    with running_host(host_dirs, config) as host:
        host.initialize()
        down = host.wait_servers(
            lambda s: s.get("crash", {}).get("status") == "restarting" and "retryInMs" in s["crash"],
        )["crash"]
        assert down["restarts"] >= 1 and down["error"]


def test_restart_tries_a_failed_server_again_and_it_is_ready_once_fixed(host_dirs: HostDirs) -> None:
    script = host_dirs.root / "bin" / "server"
    config = f"[mcp_servers.later]\ncommand = {toml_str(script)}\n"
    with running_host(host_dirs, config) as host:
        host.initialize()
        settled(host, "later", "failed")

        again = host.call(
            "servers/restart", {"server": "later"}, timeout=QUICK
        )  # still missing: failed at once
        assert again["status"]["status"] == "failed" and "command not found" in again["status"]["error"]
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(f"#!/bin/sh\nexec {PYTHON} -P {SERVERS / 'demo_server.py'}\n")
        script.chmod(0o755)
        answer = host.call("servers/restart", {"server": "later"})
        assert answer["server"] == "later" and answer["status"]["status"] == "ready"
        assert host.call("tools/call", {"server": "later", "tool": "echo", "arguments": {"text": "hi"}})[
            "content"
        ] == [{"type": "text", "text": "hi"}]


def test_restart_reads_the_servers_config_again(host_dirs: HostDirs) -> None:
    with running_host(host_dirs, '[mcp_servers.moved]\ncommand = "tabgate-no-such-command"\n') as host:
        host.initialize()
        settled(host, "moved", "failed")
        host_dirs.config.write_text(stdio_server("moved", "demo_server.py"))
        assert host.call("servers/restart", {"server": "moved"})["status"]["status"] == "ready"

        with pytest.raises(HostError) as caught:
            host.call("servers/restart", {"server": "nope"})
        assert caught.value.code == -32011
        with pytest.raises(HostError) as caught:
            host.call("servers/restart", {})
        assert caught.value.code == -32602


# -- handshake = "auto" against initialize-only servers ------------------------------------------------------


def legacy_table(name: str, handshake: str, mode: str, origin: str | None) -> str:
    # startup_timeout_sec 5: with the SDK's own probe wait (10 s against these servers) none would be ready.
    common = f'handshake = "{handshake}"\nstartup_timeout_sec = 5\n'
    if mode == "stdio":
        argv = ", ".join(toml_str(a) for a in ("-P", str(SERVERS / "legacy_server.py")))
        return f"[mcp_servers.{name}]\ncommand = {toml_str(PYTHON)}\nargs = [{argv}]\n{common}\n"
    assert origin is not None
    transport = "sse" if mode == "sse" else "streamable_http"
    url = endpoint(origin, mode)
    # No Authorization of its own: the host's OAuth wraps every request (its lock held while one is open),
    # and the probe the server leaves open must not hold back the initialize that follows.
    return f'[mcp_servers.{name}]\nurl = {toml_str(url)}\ntransport = "{transport}"\n{common}\n'


@pytest.mark.parametrize("mode", ["stdio", "http", "sse"])
def test_auto_reaches_an_initialize_only_server_as_legacy_does(host_dirs: HostDirs, mode: str) -> None:
    def check(origin: str | None) -> None:
        config = legacy_table("auto", "auto", mode, origin) + legacy_table("legacy", "legacy", mode, origin)
        with running_host(host_dirs, config) as host:
            host.initialize()
            servers = host.wait_ready("auto", "legacy")
            assert servers["auto"]["tools"] == servers["legacy"]["tools"] == 1
            answer = host.call("tools/call", {"server": "auto", "tool": "echo", "arguments": {"text": "hi"}})
            assert answer["content"] == [{"type": "text", "text": "hi"}]

    if mode == "stdio":
        check(None)
    else:
        with serving("legacy_server.py", mode) as origin:
            check(origin)


def test_auto_reaches_a_modern_server_that_starts_slower_than_the_probe_bound(host_dirs: HostDirs) -> None:
    # A slow start outlasts the probe's bound: the SDK falls back, and the server's answer brings it back.
    auto = 'handshake = "auto"\n'
    config = stdio_server(
        "slow", "demo_server.py", extra=auto + 'env = { DEMO_START_DELAY = "1" }'
    ) + stdio_server("quick", "demo_server.py", extra=auto)
    with running_host(host_dirs, config) as host:
        host.initialize()
        host.wait_ready("slow", "quick")
        for name in ("slow", "quick"):
            answer = host.call("tools/call", {"server": name, "tool": "echo", "arguments": {"text": name}})
            assert answer["content"][0]["text"] == name


# -- the classes as types ---------------------------------------------------------------------------------


def test_failures_are_classified_by_type_and_status() -> None:
    import httpx2
    from mcp import MCPError

    from native_host.servers.failures import CommandNotFound, ConfigRefused, NotExecutable

    assert classify(CommandNotFound("x")).cause is Cause.COMMAND_NOT_FOUND
    assert classify(ExceptionGroup("g", [NotExecutable("x")])).mend is Mend.FIX
    assert classify(ConfigRefused("x")).mend is Mend.FIX
    assert classify(ConnectionRefusedError()).mend is Mend.RETRY
    assert classify(TimeoutError()).mend is Mend.RETRY
    request = httpx2.Request("GET", "http://127.0.0.1/sse")
    for status, mend in (
        (404, Mend.FIX),
        (410, Mend.FIX),
        (400, Mend.FIX),
        (401, Mend.RETRY),
        (403, Mend.RETRY),
    ):
        error = httpx2.HTTPStatusError(
            "x", request=request, response=httpx2.Response(status, request=request)
        )
        assert classify(error).mend is mend, status
    stand_in = MCPError(-32601, "Not Found")
    assert classify(stand_in, http_status=404).cause is Cause.ENDPOINT_REFUSED
    assert classify(stand_in, http_status=503).mend is Mend.RETRY
    assert classify(httpx2.ConnectError("refused"), http_status=400).mend is Mend.RETRY
    assert [s for s in (400, 401, 403, 404, 408, 410, 422, 429, 500) if refuses_for_good(s)] == [
        400,
        404,
        410,
        422,
    ]
