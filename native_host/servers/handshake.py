"""`handshake = "auto"` bounded: the 2026-07-28 `server/discover` probe waits at most `PROBE_SECONDS`.

The mcp SDK waits 10 s (`mcp.client.session.DISCOVER_TIMEOUT_SECONDS`) for an answer to its probe before it
falls back to `initialize`; a server of the initialize era that ignores methods it does not know before
`initialize` (many do) never answers, so every start cost 10 s more than `"legacy"` on every transport
(measured: stdio, streamable HTTP and SSE, 0.04 s → 10.04 s). A modern server answers the probe in one round
trip; one that is slower than the bound (still starting) is not lost either: the SDK sends `initialize`, and
the server's answer to it (-32022, naming its versions) makes the SDK probe once more. The SDK reads the
constant at each probe and has no per-client setting for it, so the host sets it once, for its own
clients."""

from __future__ import annotations

from typing import Final

import mcp.client.session as _session
import mcp_types as types

from ..config.identity import HOST_NAME, HOST_VERSION

PROBE_SECONDS: Final = 0.5


def bound_the_probe() -> None:
    if not hasattr(_session, "DISCOVER_TIMEOUT_SECONDS"):  # the SDK moved it: fail loudly in tests, not users
        raise RuntimeError("mcp.client.session.DISCOVER_TIMEOUT_SECONDS is gone: bound the probe another way")
    _session.DISCOVER_TIMEOUT_SECONDS = PROBE_SECONDS


CLIENT_INFO: Final = types.Implementation(name=HOST_NAME, version=HOST_VERSION, title="Tabgate")
