"""Who the host is and whom it answers: the one place these constants live."""

from __future__ import annotations

from functools import cache

EXTENSION_ID = "aiflcfephbehodcbbjggcmhdjpgmidmd"
EXTENSION_ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
HOST_NAME = "dev.tabgate.host"
HOST_DESCRIPTION = "Tabgate native host: runs the MCP servers you configured for the Tabgate extension"
PROTOCOL_VERSION = "1"
APP_NAME = "tabgate"
DISTRIBUTION = "tabgate"


@cache
def host_version() -> str:
    # importlib.metadata costs ~30 ms, so it is only loaded when someone asks.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
