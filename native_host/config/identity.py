"""Who the host is and whom it answers: the one place these constants live."""

from __future__ import annotations

EXTENSION_ID = "aiflcfephbehodcbbjggcmhdjpgmidmd"
EXTENSION_ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
HOST_NAME = "dev.tabgate.host"
HOST_DESCRIPTION = "Tabgate native host: runs the MCP servers you configured for the Tabgate extension"
PROTOCOL_VERSION = "1"
APP_NAME = "tabgate"
# Kept in step with pyproject by a test: importlib.metadata would cost ~30 ms before the first answer.
HOST_VERSION = "0.1.0"
