"""The native host's methods (contract §4, docs/protocol.md "Host methods"): each one's params as one model.

The core builds the model and sends its wire form (core/host_link/host_requests.py `ask_host`); the host
parses the request with the same model (native_host/methods/params.py `parse_params`). A method and its
model travel together as a `HostMethod`, so neither end can send or read a method without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field


class HostParams(BaseModel):
    """A host method's params: extra fields ignored (a newer core may send more)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def to_wire(self) -> dict[str, Any]:
        """The params as sent: by their wire names, a field left out when None; values not copied."""
        wire: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if value is not None:
                wire[field.alias or name] = value
        return wire


class AnyServerParams(HostParams):
    """A listing of one server's, or of every server's when `server` is left out."""

    server: str | None = None
    cursor: str | None = None


class ServerParams(HostParams):
    """Params naming one configured server (logs, restart, sign-in, sign-out)."""

    server: str


class EnableParams(ServerParams):
    model_config = ConfigDict(strict=True)

    enabled: bool


class CallParams(ServerParams):
    tool: str
    arguments: dict[str, Any] | None = None
    timeout_ms: float | None = Field(default=None, alias="timeoutMs", gt=0, allow_inf_nan=False)


class ReadParams(ServerParams):
    uri: str


class PromptParams(ServerParams):
    name: str
    arguments: dict[str, str] | None = None


class UploadParams(HostParams):
    model_config = ConfigDict(strict=True)

    paths: list[str]
    folders: list[str]


class CancelParams(HostParams):
    """`$/cancelRequest` (a notification the service worker sends): the request to cancel."""

    id: str | int


@dataclass(frozen=True, slots=True)
class HostMethod[P: HostParams]:
    """A host method by its wire name, with the one model of its params."""

    name: str
    params: type[P]


TOOLS_LIST: Final = HostMethod("tools/list", AnyServerParams)
TOOLS_CALL: Final = HostMethod("tools/call", CallParams)
RESOURCES_LIST: Final = HostMethod("resources/list", AnyServerParams)
TEMPLATES_LIST: Final = HostMethod("resources/templates/list", AnyServerParams)
RESOURCES_READ: Final = HostMethod("resources/read", ReadParams)
PROMPTS_LIST: Final = HostMethod("prompts/list", AnyServerParams)
PROMPTS_GET: Final = HostMethod("prompts/get", PromptParams)
SERVERS_LOGS: Final = HostMethod("servers/logs", ServerParams)
SERVERS_SET_ENABLED: Final = HostMethod("servers/setEnabled", EnableParams)
SERVERS_RESTART: Final = HostMethod("servers/restart", ServerParams)
SERVERS_SIGN_IN: Final = HostMethod("servers/signIn", ServerParams)
SERVERS_SIGN_OUT: Final = HostMethod("servers/signOut", ServerParams)
FILES_CHECK_UPLOAD: Final = HostMethod("files/checkUpload", UploadParams)
CANCEL_REQUEST: Final = HostMethod("$/cancelRequest", CancelParams)

# The methods the host's event loop answers, by name (native_host/process/method_table.py `LOOP_METHODS`).
HOST_METHODS: Final[dict[str, HostMethod[Any]]] = {
    method.name: method
    for method in (
        TOOLS_LIST,
        TOOLS_CALL,
        RESOURCES_LIST,
        TEMPLATES_LIST,
        RESOURCES_READ,
        PROMPTS_LIST,
        PROMPTS_GET,
        SERVERS_LOGS,
        SERVERS_SET_ENABLED,
        SERVERS_RESTART,
        SERVERS_SIGN_IN,
        SERVERS_SIGN_OUT,
        FILES_CHECK_UPLOAD,
    )
}
