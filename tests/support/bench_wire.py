"""`tools/call` through the host versus `mcp.Client` straight to the same server, at each wire: the 2025-11-25
wire (`handshake = "legacy"`, the direct client `mode="legacy"`) and the 2026-07-28 wire (`handshake = "auto"`
against the SDK demo server, which answers `server/discover`; the direct client `mode="auto"`). Interleaved in
rounds so both sides see the same machine load (this VM's speed drifts within seconds). Both are timed on the
thread that waits for the answer: the host through `FramesClient`, the direct client inside its loop.
Beside the ratio, what the host process spends per call (CPU time and context switches of all its threads,
from /proc): less noisy than the round trip on a loaded machine."""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Literal

DEMO_SERVER = Path(__file__).resolve().parents[1] / "host" / "servers" / "demo_server.py"
ROUNDS, PER_ROUND = 36, 10
ARGUMENTS = {"text": "hi"}
WIRES: dict[str, Literal["legacy", "auto"]] = {"2025-11-25": "legacy", "2026-07-28": "auto"}


def _process_costs(pid: int) -> tuple[float, int]:
    """CPU seconds and context switches so far of every thread of `pid`."""
    ticks = switches = 0
    for thread in os.listdir(f"/proc/{pid}/task"):
        fields = Path(f"/proc/{pid}/task/{thread}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
        for line in Path(f"/proc/{pid}/task/{thread}/status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches += int(line.split()[1])
    return ticks / os.sysconf("SC_CLK_TCK"), switches


def host_vs_direct() -> list:  # list[Figure]
    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    from tests.support.bench import Figure, _host_dirs, median
    from tests.support.frames_client import FramesClient

    async def direct_batch(client: Client, n: int) -> list[float]:
        samples = []
        for _ in range(n):
            t0 = time.perf_counter()
            await client.call_tool("echo", ARGUMENTS)
            samples.append((time.perf_counter() - t0) * 1000)
        return samples

    def host_batch(host: FramesClient, n: int) -> list[float]:
        samples = []
        for _ in range(n):
            t0 = time.perf_counter()
            host.call("tools/call", {"server": "demo", "tool": "echo", "arguments": ARGUMENTS})
            samples.append((time.perf_counter() - t0) * 1000)
        return samples

    figures = []
    for wire, mode in WIRES.items():
        through_host: list[float] = []
        straight: list[float] = []
        cpu = switches = 0.0
        table = (
            f"[mcp_servers.demo]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = {json.dumps([str(DEMO_SERVER)])}\nhandshake = {json.dumps(mode)}\n"
            "startup_timeout_sec = 120\n"  # a loaded machine starts a Python server slowly; the bench waits
        )
        with tempfile.TemporaryDirectory() as tmp, start_blocking_portal() as portal:
            launcher, env = _host_dirs(Path(tmp), table)
            host = FramesClient(launcher, env)
            host.call("initialize", {"client": {"name": "bench", "version": "1"}})
            host.wait_ready("demo", timeout=300)
            params = StdioServerParameters(command=sys.executable, args=[str(DEMO_SERVER)])
            with portal.wrap_async_context_manager(Client(params, mode=mode)) as client:
                assert client.protocol_version == wire, (client.protocol_version, wire)
                host_batch(host, PER_ROUND)  # warm-up, both sides
                portal.call(direct_batch, client, PER_ROUND)
                for _ in range(ROUNDS):
                    cpu0, switches0 = _process_costs(host.pid)
                    through_host += host_batch(host, PER_ROUND)
                    cpu1, switches1 = _process_costs(host.pid)
                    cpu, switches = cpu + cpu1 - cpu0, switches + switches1 - switches0
                    straight += portal.call(direct_batch, client, PER_ROUND)
            host.close()
        ratio = statistics.median(through_host) / statistics.median(straight)
        n = ROUNDS * PER_ROUND
        figures += [
            Figure(
                f"tools_call_through_host_{wire}",
                median(through_host),
                "ms",
                note=f"demo echo over stdio at the {wire} wire, median of {n}",
            ),
            Figure(
                f"tools_call_direct_client_{wire}",
                median(straight),
                "ms",
                note=f"mcp.Client mode={mode}, same server, interleaved",
            ),
            Figure(
                f"host_vs_direct_ratio_{wire}",
                round(ratio, 3),
                "×",
                "≤ 1.25",
                f"host round trip / direct round trip (load average {os.getloadavg()[0]:.1f})",
            ),
            Figure(f"host_cpu_per_call_{wire}", round(cpu / n * 1e6), "µs", note="host process, all threads"),
            Figure(
                f"host_context_switches_per_call_{wire}",
                round(switches / n, 2),
                "",
                note="host process, all threads, voluntary and not",
            ),
        ]
    return figures
