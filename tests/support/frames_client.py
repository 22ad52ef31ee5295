"""A native-messaging client that reads each answer on the thread that asked: the benchmark's way to time
the host. `tests/host/hostproc.py` reads frames on a thread of its own (tests need notifications as they
come), which adds a thread hop to every round trip on the measuring side; the direct `mcp.Client` it is
compared with is timed inside its own event loop and has none."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from native_host.config.identity import EXTENSION_ORIGIN
from tests.host.hostproc import HEADER
from tests.support.bounds import server_ready_s


class FramesClient:
    def __init__(self, launcher: Path, env: Mapping[str, str]) -> None:
        self._process = subprocess.Popen(
            [str(launcher), EXTENSION_ORIGIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(env)
        )
        self._ids = 0

    def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """The result of one request; notifications that arrive before its answer are passed over."""
        assert self._process.stdin is not None
        self._ids += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params or {}})
        self._process.stdin.write(HEADER.pack(len(body)) + body.encode())
        self._process.stdin.flush()
        while (message := self._read()).get("id") != self._ids:
            pass
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message["result"]

    @property
    def pid(self) -> int:
        return self._process.pid

    def wait_ready(self, server: str, timeout: float = server_ready_s()) -> None:
        deadline = time.monotonic() + timeout
        while {s["name"]: s["status"] for s in self.call("servers/list")["servers"]}.get(server) != "ready":
            if time.monotonic() > deadline:
                raise TimeoutError(f"server {server!r} is not ready after {timeout} s")
            time.sleep(0.05)

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(10)

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        header = self._process.stdout.read(HEADER.size)
        if len(header) < HEADER.size:
            raise EOFError(f"the host closed its output (exit code {self._process.wait(10)})")
        (length,) = HEADER.unpack(header)
        message: dict[str, Any] = json.loads(self._process.stdout.read(length))
        return message
