"""A client for the Tabgate host as Chrome runs it: start the launcher with the origin, speak frames on pipes.

Reusable by tests and benchmarks: `HostProcess.start(launcher)`, then `call`, `request` or `submit`."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from native_host.config.identity import EXTENSION_ORIGIN
from tests.support.bounds import TOOL_CALL_S, server_ready_s
from tests.support.default_place import kept_apart

HEADER = struct.Struct("=I")
FRAME_LIMIT = 1024 * 1024
# A request may run as long as a tool call does; a server settles within the starts the host allows it.
DEFAULT_TIMEOUT = TOOL_CALL_S
SETTLE_TIMEOUT = server_ready_s()


class HostError(Exception):
    """A JSON-RPC error answer from the host."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code: int = error["code"]
        self.message: str = error["message"]
        self.data: Any = error.get("data")


class InstallFailed(RuntimeError):
    """`tabgate-host install` said no (its words went to stderr)."""


class ProtocolViolation(AssertionError):
    """The host wrote something on stdout that is not a valid frame."""


def install(user_data_dir: Path, config: Path | None = None) -> Path:
    """`tabgate-host install --user-data-dir DIR [--config FILE]` (what a user runs, through the command's own
    entry, here in this process: a Python start-up per host test cost more than the install); return the
    manifest's launcher. Given both folders, the install reads nothing from the environment."""
    from native_host.setup.admin import run_admin  # pydantic and tomlkit: only for those who install

    args = ["install", "--user-data-dir", str(user_data_dir)]
    if config is not None:
        args += ["--config", str(config)]
    with contextlib.redirect_stdout(io.StringIO()) as said:
        code = run_admin(args)
    if code != 0:
        raise InstallFailed(f"tabgate-host {' '.join(args)} exited {code}: {said.getvalue()}")
    manifest = json.loads((user_data_dir / "NativeMessagingHosts" / "dev.tabgate.host.json").read_text())
    return Path(manifest["path"])


@dataclass
class HostProcess:
    process: subprocess.Popen[bytes]
    notifications: list[dict[str, Any]] = field(default_factory=list)
    frame_sizes: list[int] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    orphan_errors: list[dict[str, Any]] = field(
        default_factory=list
    )  # errors with id null (unreadable requests)
    _pending: dict[Any, Future[dict[str, Any]]] = field(default_factory=dict)
    _chunks: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))  # ids are 'hostproc:N'
    _stderr: list[bytes] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        launcher: Path,
        *,
        origin: str = EXTENSION_ORIGIN,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> HostProcess:
        """Start the launcher exactly as Chrome does: argv[1] = origin, frames on stdin/stdout; its gateway
        place beside the launcher unless `env` names one or this process claimed the default place."""
        process = subprocess.Popen(
            [str(launcher), origin, *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **kept_apart(env or {}, launcher.parent / "run")},
            cwd=launcher.parent,
        )
        host = cls(process)
        threading.Thread(target=host._read_stdout, daemon=True).start()
        threading.Thread(target=host._read_stderr, daemon=True).start()
        return host

    # -- sending -------------------------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send_frame(self, body: bytes) -> None:
        self.send_raw(HEADER.pack(len(body)) + body)

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_frame(json.dumps(message).encode())

    def submit(
        self, method: str, params: Mapping[str, Any] | None = None, *, id: Any = None
    ) -> Future[dict[str, Any]]:
        """Send a request; the future resolves to the whole response message (with `result` or `error`)."""
        request_id = f"hostproc:{next(self._ids)}" if id is None else id
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            self._pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return future

    def submit_raw(self, body: bytes, id: Any) -> Future[dict[str, Any]]:
        """Send a hand-made frame body whose answer will carry `id`."""
        future = self.expect(id)
        self.send_frame(body)
        return future

    def expect(self, id: Any) -> Future[dict[str, Any]]:
        """The answer that will carry `id`, to a request sent by hand (`send_raw`)."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            self._pending[id] = future
        return future

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        return self.submit(method, params).result(timeout)

    def call(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> Any:
        """The result of a request, or HostError for an error answer."""
        response = self.request(method, params, timeout=timeout)
        if "error" in response:
            raise HostError(response["error"])
        return response["result"]

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def cancel(self, request_id: Any) -> None:
        self.notify("$/cancelRequest", {"id": request_id})

    def initialize(self, *, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        result: dict[str, Any] = self.call(
            "initialize",
            {"client": {"name": "hostproc", "version": "1"}, "protocolVersion": "1"},
            timeout=timeout,
        )
        return result

    # -- waiting -------------------------------------------------------------------------------------------

    def wait_for(
        self, predicate: Callable[[list[dict[str, Any]]], Any], *, timeout: float = DEFAULT_TIMEOUT
    ) -> Any:
        """Block until predicate(notifications) is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not (value := predicate(self.notifications)):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"condition not met; last notifications: {self.notifications[-3:]}")
                if self.process.poll() is not None:
                    raise EOFError(
                        f"the host exited ({self.process.returncode}); stderr: {self.stderr[-2000:]}"
                    )
                self._changed.wait(min(remaining, 0.2))
            return value

    def wait_servers(
        self, predicate: Callable[[dict[str, dict[str, Any]]], bool], *, timeout: float = SETTLE_TIMEOUT
    ) -> dict[str, dict[str, Any]]:
        """Wait until the server statuses (from servers/list, then notifications) satisfy predicate."""
        current = {s["name"]: s for s in self.call("servers/list")["servers"]}
        if predicate(current):
            return current

        def check(notes: list[dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
            for note in reversed(notes):
                if note["method"] == "notifications/servers":
                    servers = {s["name"]: s for s in note["params"]["servers"]}
                    return servers if predicate(servers) else None
            return None

        result: dict[str, dict[str, Any]] = self.wait_for(check, timeout=timeout)
        return result

    def wait_ready(self, *names: str, timeout: float = SETTLE_TIMEOUT) -> dict[str, dict[str, Any]]:
        """Wait until no server is still starting (and the named ones are ready)."""
        return self.wait_servers(
            lambda s: (
                all(v["status"] != "starting" for v in s.values())
                and all(s.get(n, {}).get("status") == "ready" for n in names)
            ),
            timeout=timeout,
        )

    def close(self, timeout: float = 15.0) -> int:
        """Close stdin as Chrome does when the port disconnects, and wait for the exit code."""
        if self.process.stdin and not self.process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def rss_kib(self) -> int:
        """Resident memory of the host process itself (Linux /proc), for benchmarks."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS line: is this Linux?")

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    # -- reading -------------------------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            header = stream.read(HEADER.size)
            if not header:
                break
            if len(header) < HEADER.size:
                self.violations.append(f"truncated header {header!r}")
                break
            (length,) = HEADER.unpack(header)
            if length > FRAME_LIMIT:
                self.violations.append(f"frame of {length} bytes exceeds 1 MiB (header {header!r})")
                break
            body = stream.read(length)
            self.frame_sizes.append(length)
            try:
                message = json.loads(body.decode("utf-8"))
                assert isinstance(message, dict) and message.get("jsonrpc") == "2.0"
            except (ValueError, AssertionError):
                self.violations.append(f"not a JSON-RPC frame: {body[:200]!r}")
                break
            self._dispatch(message)
        with self._lock:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(EOFError("the host closed its stdout"))
        with self._changed:
            self._changed.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("method") == "$/chunk":
            params = message["params"]
            parts = self._chunks.setdefault(params["id"], [])
            parts.append(params)
            if not params["last"]:
                return
            del self._chunks[params["id"]]
            if [p["seq"] for p in parts] != list(range(len(parts))):
                self.violations.append(f"chunks out of order for {params['id']!r}")
            message = json.loads("".join(p["data"] for p in parts))
        if "id" in message and "method" not in message:
            if message["id"] is None and "error" in message:
                with self._changed:
                    self.orphan_errors.append(message["error"])
                    self._changed.notify_all()
                return
            with self._lock:
                future = self._pending.pop(message["id"], None)
            if future is None and self.unsolicited is not None:
                self.unsolicited.append(message)
            elif future is None:
                self.violations.append(f"response to unknown id: {str(message)[:200]}")
            else:
                future.set_result(message)
            return
        with self._changed:
            self.notifications.append(message)
            self._changed.notify_all()

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        for line in stream:
            self._stderr.append(line)


class BrowserRefusal(Exception):
    """Raised by a FakeBrowserSide answer: the browser answers the request with this JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message}


NO_ANSWER: Final = object()  # what an answer function returns for a request the browser never answers


class FakeBrowserSide:
    """Answers the host's requests to the browser on a thread, as the extension's service worker does."""

    def __init__(self, host: HostProcess, answer: Callable[[str, dict[str, Any]], Any]) -> None:
        self.host = host
        self.answer = answer
        self.seen: list[dict[str, Any]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        handled = 0
        while not self._done.is_set():
            with self.host._changed:
                self.host._changed.wait(0.05)
                new = self.host.notifications[handled:]
                handled = len(self.host.notifications)
            for message in new:
                if "id" in message and "method" in message:
                    self.seen.append(message)
                    try:
                        result = self.answer(message["method"], message.get("params", {}))
                    except BrowserRefusal as refusal:
                        self.host.send({"jsonrpc": "2.0", "id": message["id"], "error": refusal.error})
                    else:
                        if result is not NO_ANSWER:
                            self.host.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def stop(self) -> None:
        self._done.set()
        self._thread.join(2)
