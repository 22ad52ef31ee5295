"""`handshake = "auto"` vs `"legacy"` against an initialize-only server (tests/host/servers/legacy_server.py,
which never answers the 2026-07-28 `server/discover` probe), on stdio, streamable HTTP and SSE, through the
host: `servers/restart` answers once the server's start has settled, so its time is the handshake's (spawn,
probe, initialize, first tools/list). Interleaved rounds, median of each; the figure is auto − legacy (issue
19: ≤ 1 s)."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from tests.support.http_servers import endpoint, serving

SERVER = Path(__file__).resolve().parents[1] / "host" / "servers" / "legacy_server.py"
ROUNDS = 5


def _table(name: str, handshake: str, transport: str, url: str | None) -> str:
    head = f'[mcp_servers.{name}]\nhandshake = "{handshake}"\nstartup_timeout_sec = 30\n'
    if url is None:
        return head + f"command = {json.dumps(sys.executable)}\nargs = {json.dumps(['-P', str(SERVER)])}\n\n"
    # A static Authorization: under OAuth the host connects streamable HTTP with initialize only.
    auth = 'http_headers = { Authorization = "Bearer bench" }\n' if transport == "streamable_http" else ""
    return head + f'url = {json.dumps(url)}\ntransport = "{transport}"\n{auth}\n'


def handshake_auto_vs_legacy() -> list:  # list[Figure]
    from tests.host.hostproc import HostProcess
    from tests.support.bench import Figure, _host_dirs, median

    figures = []
    for transport, mode in (("stdio", None), ("streamable_http", "http"), ("sse", "sse")):
        with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
            url = (
                None
                if mode is None
                else endpoint(stack.enter_context(serving("legacy_server.py", mode)), mode)
            )
            config = _table("auto", "auto", transport, url) + _table("legacy", "legacy", transport, url)
            launcher, env = _host_dirs(Path(tmp), config)
            host = HostProcess.start(launcher, env=env)
            try:
                host.initialize()
                host.wait_ready("auto", "legacy", timeout=60)
                times: dict[str, list[float]] = {"auto": [], "legacy": []}
                for _ in range(ROUNDS):
                    for name in ("auto", "legacy"):
                        t0 = time.perf_counter()
                        answer = host.call("servers/restart", {"server": name}, timeout=60)
                        times[name].append(time.perf_counter() - t0)
                        assert answer["status"]["status"] == "ready", answer
            finally:
                host.close()
        auto, legacy = median(times["auto"]), median(times["legacy"])
        figures.append(
            Figure(
                f"handshake_auto_minus_legacy_{transport}",
                round(auto - legacy, 3),
                "s",
                "≤ 1",
                f"initialize-only server; median of {ROUNDS} restarts: auto {auto} s, legacy {legacy} s",
            )
        )
    return figures
