"""How long the tests wait for the product: each limit is the product's own bound for what is awaited, times
`LOAD_SLACK`, in this one place so a reader sees why each number is what it is.

The suite runs on a 2-core machine shared by several suites at once (load averages of 22–30 seen): a step
the product bounds at N s of its own work can then take longer in wall time, as its processes wait for a core.
A longer limit never makes a test pass that should fail: the tests assert outcomes, never times, so a broken
product still fails, only later. Waits that check something does NOT happen soon (a hung request answered at
once, no retry within 1 s) are not taken from here: their point is the short limit."""

from __future__ import annotations

from typing import Final

from core.browser.tool_spec import DEFAULT_BROWSER_TIMEOUT_MS
from core.host_link.servers import TIMEOUT_MARGIN_MS
from core.runtime.facade import HOST_ENSURE_LIMIT_MS
from core.tools.handlers.browser import LOCAL_TIMEOUT_MARGIN_MS
from native_host.config.preview import DEFAULT_STARTUP_TIMEOUT_SEC, DEFAULT_TOOL_TIMEOUT_SEC
from native_host.servers.connection import retry_delay

# Wall time per second of the product's own bound on a machine this busy: processes of a loaded 2-core machine
# got about a third of the time they get on a quiet one in the suite's loaded runs.
LOAD_SLACK: Final = 3.0
# The starts a server gets before a test calls it broken: the first, and two more after the product's backoff
# (a start that ran out of its limit because the machine was busy is retried by the product, not failed).
SERVER_STARTS: Final = 3


def loaded(product_seconds: float) -> float:
    """The wall time a test waits for a step the product bounds at `product_seconds`."""
    return product_seconds * LOAD_SLACK


def server_ready_s(
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_SEC, starts: int = SERVER_STARTS
) -> float:
    """A configured MCP server ready: `starts` runs, each bounded by its `startup_timeout_sec`, with the
    host's backoff between them (`retry_delay`). The host starts its servers side by side, so this bounds
    several servers as well as one."""
    return loaded(
        starts * startup_timeout_s + sum(retry_delay(failures, jitter=1.0) for failures in range(1, starts))
    )


# The extension has (re)started the native host: the core waits this long for it on a call (facade).
HOST_CONNECT_S: Final = loaded(HOST_ENSURE_LIMIT_MS / 1000)
# The host connected and its servers (default startup limit) ready: what an e2e fixture waits for.
SERVERS_UP_S: Final = HOST_CONNECT_S + server_ready_s()
# A browser tool call (a page loads, an element appears) at its default `timeoutMs`, plus the core's margin.
BROWSER_CALL_S: Final = loaded((DEFAULT_BROWSER_TIMEOUT_MS + LOCAL_TIMEOUT_MARGIN_MS) / 1000)
# An MCP tool call at the default `tool_timeout_sec`, with the core's margin over the host's limit.
TOOL_CALL_S: Final = loaded(DEFAULT_TOOL_TIMEOUT_SEC + TIMEOUT_MARGIN_MS / 1000)
# Pyodide's boot has no bound in the product (a bad CSP hangs it silently, so tests bound it): 60 s is ~70×
# the measured boot of 0.88 s (README), already loaded.
PYTHON_BOOT_S: Final = 60.0
# Chromium with the extension opened again: Python booted and the host connected.
BROWSER_UP_S: Final = PYTHON_BOOT_S + HOST_CONNECT_S
