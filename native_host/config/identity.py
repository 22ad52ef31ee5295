"""Who the host is and whom it answers. Its name and its wire's version are the extension's too, so they are
core/host_link/port_states.py's, kept here under the host's names."""

from __future__ import annotations

from core.host_link.port_states import HOST_NAME as HOST_NAME
from core.host_link.port_states import PROTOCOL_VERSION as PROTOCOL_VERSION

EXTENSION_ID = "aiflcfephbehodcbbjggcmhdjpgmidmd"
EXTENSION_ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
HOST_DESCRIPTION = "Tabgate native host: runs the MCP servers you configured for the Tabgate extension"
APP_NAME = "tabgate"
# Kept in step with pyproject by a test: importlib.metadata would cost ~30 ms before the first answer.
HOST_VERSION = "0.1.0"
