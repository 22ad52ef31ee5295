"""The host started as Chrome starts it: the launcher from `install`, the origin as argv[1], frames."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HostDirs, StartHost
from hostproc import HostProcess

from native_host.config.identity import EXTENSION_ORIGIN, HOST_NAME, HOST_VERSION

pytestmark = pytest.mark.host


def test_install_writes_manifest_and_launcher(host_dirs: HostDirs, launcher: Path) -> None:
    manifest = json.loads((host_dirs.profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())
    assert manifest == {
        "name": HOST_NAME,
        "description": manifest["description"],
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [EXTENSION_ORIGIN],
    }
    assert launcher.is_absolute() and launcher.stat().st_mode & 0o111
    script = launcher.read_text()
    assert f"--config {host_dirs.config}" in script
    # The interpreter is named by absolute path: browsers start hosts with a minimal PATH.
    interpreter = script.splitlines()[-1].split()[1]
    assert Path(interpreter).is_absolute() and Path(interpreter).exists()


def test_initialize_and_ping(start_host: StartHost) -> None:
    host = start_host()
    result = host.initialize()
    assert result == {
        "host": {"name": HOST_NAME, "version": HOST_VERSION},
        "protocolVersion": "1",
        "servers": [],
    }
    assert host.call("ping") == {}
    assert host.call("servers/list") == {"servers": []}
    assert host.close() == 0


def test_initialize_lists_configured_servers_as_starting(start_host: StartHost, host_dirs: HostDirs) -> None:
    host_dirs.config.write_text(
        '[mcp_servers.alpha]\ncommand = "/nonexistent/alpha"\n'
        '[mcp_servers.beta]\nurl = "http://127.0.0.1:9/mcp"\nenabled = false\n'
    )
    servers = start_host().initialize()["servers"]
    assert [(s["name"], s["transport"], s["status"]) for s in servers] == [
        ("alpha", "stdio", "starting"),
        ("beta", "streamable_http", "disabled"),
    ]


def test_wrong_origin_exits_2_with_a_message(launcher: Path, host_dirs: HostDirs) -> None:
    for origin in ("chrome-extension://abcdefghijklmnopabcdefghijklmnop/", "https://example.com", ""):
        done = subprocess.run(
            [str(launcher), origin], input=b"", capture_output=True, timeout=30, env=host_dirs.env
        )
        assert done.returncode == 2
        assert b"refusing" in done.stderr and EXTENSION_ORIGIN.encode() in done.stderr
        assert done.stdout == b""


def test_windows_parent_window_argument_is_accepted(start_host: StartHost) -> None:
    host = start_host(extra_args=["--parent-window=0"])
    assert host.call("ping") == {}
    assert host.close() == 0


def test_eof_exits_0(start_host: StartHost) -> None:
    host = start_host()
    assert host.close() == 0


def test_eof_before_anything_exits_0(start_host: StartHost) -> None:
    host = start_host()
    host.call("ping")
    assert host.close() == 0
    assert host.frame_sizes  # the one answer, and nothing else


def test_bad_json_answers_parse_error_and_host_lives(start_host: StartHost) -> None:
    host = start_host()
    errors = _errors_for(host, [b"{not json", b"\xff\xfe", b"", b'{"jsonrpc":"2.0","id":1,"method":"ping"'])
    assert [e["code"] for e in errors] == [-32700] * 4
    assert host.close() == 0


def _errors_for(host: HostProcess, bodies: list[bytes]) -> list[dict[str, object]]:
    """Send raw bodies, then a ping; their errors (id null) arrive before the ping's answer."""
    for body in bodies:
        host.send_frame(body)
    assert host.call("ping") == {}
    return list(host.orphan_errors)


def test_malformed_requests_get_json_rpc_errors(start_host: StartHost) -> None:
    host = start_host()
    errors = _errors_for(
        host,
        [
            b"{oops",
            b"[1,2]",
            b'"just a string"',
            b'{"jsonrpc":"1.0","method":"ping"}',
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        ],
    )
    assert [e["code"] for e in errors] == [-32700, -32600, -32600, -32600, -32600, -32600]
    assert all(isinstance(e["message"], str) and e["message"] for e in errors)
    no_method = host.submit_raw(b'{"jsonrpc":"2.0","id":"m"}', "m").result(30)
    assert no_method["error"]["code"] == -32600 and "method" in no_method["error"]["message"]


def test_unknown_method_and_bad_params(start_host: StartHost) -> None:
    host = start_host()
    assert host.request("no/such/method")["error"]["code"] == -32601
    response = host.request("initialize", {"protocolVersion": 1})
    assert response["error"]["code"] == -32602 and "protocolVersion" in response["error"]["message"]
    array_params = host.submit_raw(b'{"jsonrpc":"2.0","id":"p","method":"ping","params":[1]}', "p").result(30)
    assert array_params["error"]["code"] == -32602 and "object" in array_params["error"]["message"]
    assert host.call("ping") == {}


def test_truncated_length_prefix_ends_the_host_with_a_logged_reason(
    start_host: StartHost, host_dirs: HostDirs
) -> None:
    host = start_host()
    host.call("ping")
    host.send_raw(b"\x05\x00")
    code = host.close()
    assert code not in (0, 2)
    assert "length prefix" in (host_dirs.logs / "host.log").read_text()


def test_truncated_frame_body_ends_the_host(start_host: StartHost, host_dirs: HostDirs) -> None:
    host = start_host()
    host.send_raw(struct.pack("=I", 100) + b'{"jsonrpc"')
    assert host.close() not in (0, 2)
    assert "inside a frame" in (host_dirs.logs / "host.log").read_text()


def test_frames_in_any_pieces_once_the_loop_runs_are_all_served_and_a_cut_frame_ends_the_host(
    start_host: StartHost, host_dirs: HostDirs
) -> None:
    host = start_host()
    host.call("tools/list")  # answered on the event loop: it runs (where a change of reader would start)

    def ping(request_id: str) -> bytes:
        return frame(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode())

    answers = [host.expect(f"p{index}") for index in range(5)]
    host.send_raw(ping("p0") + ping("p1") + ping("p2")[:9])  # two frames and part of a third in one write
    host.send_raw(ping("p2")[9:] + ping("p3")[:2])
    host.send_raw(ping("p3")[2:] + ping("p4"))
    assert [answer.result(30)["result"] for answer in answers] == [{}] * 5
    host.send_raw(struct.pack("=I", 100) + b'{"jsonrpc"')
    assert host.close() == 1
    assert "inside a frame (10 of 100 bytes)" in (host_dirs.logs / "host.log").read_text()


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def test_logs_go_to_the_log_dir_not_stdout(start_host: StartHost, host_dirs: HostDirs) -> None:
    host = start_host()
    host.send_frame(b"{broken")
    host.call("ping")
    assert host.close() == 0
    log = (host_dirs.logs / "host.log").read_text()
    assert "host started" in log and "parse error" in log
    assert host.violations == []


HEAVY = ("asyncio", "anyio", "mcp", "pydantic", "ssl", "httpx")


def test_what_the_host_loads_before_its_first_answer_is_light() -> None:
    # Chrome waits for the answer to `initialize`; the event loop, mcp and pydantic load after it, on the
    # event-loop thread (native_host/engine.py).
    loaded = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            f"import sys, native_host.host; print(sorted(m for m in {HEAVY!r} if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "[]", loaded.stdout
