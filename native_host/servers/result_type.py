"""A server's result without `resultType` read as "complete", as the 2026-07-28 spec says it is.

The mcp SDK checks every result against its protocol revision's schema before parsing it, and that schema
marks `resultType` required, so a 2026-07-28 server that leaves it out (the spec allows it) would have every
answer refused, `server/discover` included (the handshake then falls back to `initialize`, which such a
server refuses). The host fills the key in as it reads the server's messages, before the SDK sees them,
rather than patching the SDK's check. Older revisions have no `resultType`: there the SDK drops the key
again as a later revision's field, so their results read as before."""

from __future__ import annotations

from typing import Final

import mcp_types as types
from mcp.shared.message import SessionMessage

RESULT_TYPE: Final = "resultType"


def completed(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """`item` with `resultType: "complete"` added to a result that has none; anything else unchanged.

    The key goes into the message's own result dict: the message was just read from the server and nothing
    else holds it, and a copy of the model per message was a measurable part of each call
    (docs/benchmarks.md, "Fourth pass")."""
    if isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCResponse):
        item.message.result.setdefault(RESULT_TYPE, "complete")
    return item
