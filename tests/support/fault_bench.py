"""The issue-9 figures (fault tolerance), each beside its target; called from tests/support/bench.py.

Browser figures run in one Chromium with the real host and fault servers (tests/e2e/servers/fault_server.py);
the memory figure talks to the host directly, as Chrome does, and simply stops reading its output."""

from __future__ import annotations

import json
import os
import signal
import statistics
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.support.bench import PAGE_LOOP, Figure, median
from tests.support.browser import Extension, install_host, launch
from tests.support.faults import (
    FAULT_SERVER,
    blob_intact,
    call_blob,
    dispatch_message,
    function_call,
    quiet_page,
    server_states,
    start_call,
    stdio_server,
)
from tests.support.polling import wait_for

KILLED = [f"k{n}" for n in range(5)]  # one fresh server per kill: each restart starts from the first backoff


@contextmanager
def _browser() -> Iterator[Extension]:
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        profile.mkdir()
        config = Path(tmp) / "config.toml"
        config.write_text("".join(stdio_server(name, FAULT_SERVER) for name in ["fault", *KILLED]))
        env = {"TABGATE_LOG_DIR": str(Path(tmp) / "logs"), "TABGATE_DATA_DIR": str(Path(tmp) / "data")}
        install_host(profile, config, env=env)
        with launch(pw, profile, env=env, open_timeout_ms=180_000) as ext:
            ext.wait_python_ready()
            ext.send({"type": "config/set", "patch": {"mcpTools": True}})
            wait_for(
                lambda: set(server_states(ext).values()) == {"ready"}, "the fault servers ready", timeout_s=60
            )
            yield ext


def _ok(answer: dict[str, Any]) -> bool:
    return answer.get("success") is True


def crash_to_usable(ext: Extension) -> Figure:
    """SIGKILL a server, then call its tool every 50 ms (as a model retrying would) until one succeeds."""
    samples = []
    for n, name in enumerate(KILLED):
        pid_answer = ext.dispatch(function_call(f"mcp__{name}__pid", {}, f"kill-{n}"))
        pid = pid_answer["output"]["result"]["Ok"]["structuredContent"]["result"]
        os.kill(pid, signal.SIGKILL)
        t0 = time.perf_counter()
        attempt = 0
        while not _ok(ext.dispatch(function_call(f"mcp__{name}__echo", {"text": "x"}, f"k{n}-{attempt}"))):
            attempt += 1
            if time.perf_counter() - t0 > 120:
                raise RuntimeError(f"{name} did not come back within 120 s")
            time.sleep(0.05)
        samples.append(time.perf_counter() - t0)
    return Figure(
        "crash_to_tool_usable",
        median(samples),
        "s",
        "≤ 5",
        f"SIGKILL → first successful call through the extension, median of {len(samples)} servers",
    )


def browser_call_beside_long_mcp_call(ext: Extension) -> Figure:
    """200 `browser_tab` queries from one page while another page's 60 s MCP call runs."""
    long_page, page = quiet_page(ext), quiet_page(ext)
    start_call(long_page, "long", dispatch_message("mcp__fault__sleep", {"seconds": 60}, "bench-long"))
    time.sleep(0.5)
    samples = page.evaluate(
        PAGE_LOOP, [dispatch_message("browser_tab", {"action": "query"}, "bench-tab"), 200]
    )
    still_running = "endedAt" not in long_page.evaluate("window.__calls.long")
    ext.send({"type": "cancel", "call_id": "bench-long"})
    long_page.close()
    page.close()
    return Figure(
        "browser_call_p50_beside_60s_mcp_call",
        median(samples),
        "ms",
        "≤ 10",
        "page→answer, median of 200 browser_tab queries"
        + ("" if still_running else " (the long call had ended: not comparable)"),
    )


def history_full_vs_empty(ext: Extension) -> list[Figure]:
    """update_plan dispatch latency right after history/clear, and with the history at its byte limit
    (20 answers of 0.9 MB recorded just before); 3 interleaved rounds of 40 calls each."""
    page = quiet_page(ext)
    plan = dispatch_message("update_plan", {"plan": [{"step": "s", "status": "pending"}]}, "bench-plan")
    empty: list[float] = []
    full: list[float] = []
    for round_ in range(3):
        ext.send({"type": "history/clear"})
        empty += page.evaluate(PAGE_LOOP, [plan, 40])
        for n in range(20):
            if not blob_intact(call_blob(page, "fault", 900_000, f"fill-{round_}-{n}"), 900_000):
                raise RuntimeError("a 0.9 MB result arrived damaged")
        full += page.evaluate(PAGE_LOOP, [plan, 40])
    page.close()
    ratio = statistics.median(full) / statistics.median(empty)
    note = "update_plan page→answer, median of 120"
    return [
        Figure("dispatch_history_empty", median(empty), "ms", note=note + ", history cleared"),
        Figure("dispatch_history_full", median(full), "ms", note=note + ", after 20 × 0.9 MB answers"),
        Figure("dispatch_history_full_vs_empty", round(ratio, 3), "×", "≤ 1.2", "full ÷ empty"),
    ]


def result_60mb(ext: Extension) -> Figure:
    page = quiet_page(ext)
    samples = []
    for n in range(3):
        summary = call_blob(page, "fault", 60_000_000, f"bench-60mb-{n}", timeout_s=180)
        if not blob_intact(summary, 60_000_000):
            raise RuntimeError(f"the 60 MB result arrived damaged: {summary}")
        samples.append(summary["ms"] / 1000)
    page.close()
    return Figure(
        "result_60mb_end_to_end",
        median(samples),
        "s",
        "≤ 8",
        "page→SW→Python→host→server and back, checked line by line in the page; median of 3",
    )


def extension_faults() -> list[Figure]:
    with _browser() as ext:
        figures = [crash_to_usable(ext), browser_call_beside_long_mcp_call(ext)]
        figures += history_full_vs_empty(ext)
        figures.append(result_60mb(ext))
    return figures


# ------------------------------------------------------------------ host memory with a reader that stops

_HEADER = struct.Struct("=I")


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return _HEADER.pack(len(body)) + body


def _read_frame(stream: Any) -> dict[str, Any]:
    header = stream.read(4)
    if len(header) < 4:
        raise EOFError("the host closed its output")
    message: dict[str, Any] = json.loads(stream.read(_HEADER.unpack(header)[0]))
    return message


def _answer(stream: Any, request_id: str) -> dict[str, Any]:
    while (message := _read_frame(stream)).get("id") != request_id:
        pass
    return message


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def host_rss_unread() -> list[Figure]:
    """300 `tools/call`s for 1 MB each, sent while nobody reads the host's output: the host's peak RSS
    (its server's apart); then everything is read, and every answer must be there."""
    from native_host.config.identity import EXTENSION_ORIGIN
    from tests.host.hostproc import install

    count, size = 300, 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        # Calls queue behind each other at the server: none may time out before it is answered.
        config.write_text(stdio_server("fault", FAULT_SERVER, tool_timeout_sec=900))
        env = {
            **os.environ,
            "TABGATE_LOG_DIR": str(Path(tmp) / "logs"),
            "TABGATE_DATA_DIR": str(Path(tmp) / "d"),
        }
        (Path(tmp) / "profile").mkdir()
        launcher = install(Path(tmp) / "profile", config)
        host = subprocess.Popen(
            [str(launcher), EXTENSION_ORIGIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        assert host.stdin is not None and host.stdout is not None
        try:
            init = {"client": {"name": "bench", "version": "1"}, "protocolVersion": "1"}
            host.stdin.write(_frame({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": init}))
            host.stdin.flush()
            _answer(host.stdout, "init")
            call = {"server": "fault", "tool": "echo", "arguments": {"text": "ready?"}}
            host.stdin.write(_frame({"jsonrpc": "2.0", "id": "warm", "method": "tools/call", "params": call}))
            host.stdin.flush()
            _answer(host.stdout, "warm")
            for n in range(count):
                params = {"server": "fault", "tool": "blob", "arguments": {"size": size}}
                host.stdin.write(
                    _frame({"jsonrpc": "2.0", "id": f"b{n}", "method": "tools/call", "params": params})
                )
            host.stdin.flush()
            peak, last_change, t0 = 0.0, time.monotonic(), time.monotonic()
            while time.monotonic() - last_change < 10 and time.monotonic() - t0 < 600:
                rss = _rss_mib(host.pid)
                if rss > peak + 1:
                    peak, last_change = rss, time.monotonic()
                time.sleep(0.1)
            answered: set[str] = set()
            failed: set[str] = set()
            while len(answered) < count:
                message = _read_frame(host.stdout)
                if message.get("method") == "$/chunk" and message["params"]["last"]:
                    answered.add(str(message["params"]["id"]))
                elif "id" in message and ("result" in message or "error" in message):
                    answered.add(str(message["id"]))
                    if "error" in message:
                        failed.add(str(message["id"]))
        finally:
            host.stdin.close()
            host.wait(10)
    return [
        Figure(
            "host_rss_300_unread_1mb_answers",
            round(peak, 1),
            "MiB",
            "≤ 300",
            f"host VmRSS peak while its output goes unread; then {len(answered)} answers read back, "
            f"{len(failed)} of them errors",
        )
    ]
