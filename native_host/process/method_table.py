"""The one method table of contract §4: the methods the reader thread answers itself, those that go to the
event loop (each with the name of the handler that answers it there), and the notifications the loop hears.

Standard library only: the reader thread reads it while the event loop is still importing mcp."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from .jsonrpc import CANCEL_METHOD

EARLY_METHODS: Final = frozenset({"initialize", "ping", "servers/list"})
LOOP_METHODS: Final = MappingProxyType(
    {
        "tools/list": "tools_list",
        "tools/call": "tools_call",
        "resources/list": "resources_list",
        "resources/templates/list": "templates_list",
        "resources/read": "resources_read",
        "prompts/list": "prompts_list",
        "prompts/get": "prompts_get",
        "servers/logs": "servers_logs",
        "servers/setEnabled": "servers_set_enabled",
        "servers/restart": "servers_restart",
        "servers/signIn": "servers_sign_in",
        "servers/signOut": "servers_sign_out",
        "files/checkUpload": "files_check_upload",
    }
)
METHODS: Final = EARLY_METHODS | LOOP_METHODS.keys()

GATEWAY_STATE: Final = "gateway/state"  # browser → host {enabled}: the agent gateway switch
GATEWAY_CHANGED: Final = "gateway/changed"  # browser → host: the tools agents see have changed
# browser → host {session, ref, progress, total?, message?}: progress of an agent's running call
GATEWAY_PROGRESS: Final = "gateway/progress"
LOOP_NOTIFICATIONS: Final = frozenset({CANCEL_METHOD, GATEWAY_STATE, GATEWAY_CHANGED, GATEWAY_PROGRESS})
