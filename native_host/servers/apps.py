"""MCP Apps (`io.modelcontextprotocol/ui`, spec 2026-01-26) on the host's side: the extension it advertises to
servers and the `_meta.ui` of a tool it passes on to the core, which decides everything else
(core/host_link/app_meta.py).

The SDK sends the advertisement in the client's capabilities with `server/discover` and with `initialize`
alike (tests/host/test_host_apps.py), so every handshake mode advertises it."""

from __future__ import annotations

from typing import Any, Final

import mcp_types as types
from mcp.client.extension import ClientExtension, advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

APPS_EXTENSION: Final[ClientExtension] = advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})


def tool_ui(tool: types.Tool) -> dict[str, Any] | None:
    """The tool's `_meta.ui` as the server sent it (the core checks it), or None without one."""
    meta = tool.meta or {}
    ui = meta.get("ui")
    return ui if isinstance(ui, dict) else None
