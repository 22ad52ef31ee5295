"""The dispatcher's configuration (contract §5 `config/get`), validated as a whole before it is applied."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from core.agents.identity import TrustedScript, is_absolute
from core.agents.interpreter_names import interpreter_of
from core.calls.validation import format_validation_error


class ConfigError(Exception):
    """A config or patch that does not validate; nothing was applied."""


class ToolsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    mcpTools: StrictBool = False
    disabledTools: tuple[StrictStr, ...] = ()
    # The agent gateway (contract §8): off by default; the MCP tools of the user's servers only when asked.
    gateway: StrictBool = False
    gatewayMcp: StrictBool = False
    # The programs of agents that act without asking (contract §8.1, §8.2): trust binds to the program, never
    # to the name an agent gives itself. Entries are paths or `{executable}` objects, stored as paths, and
    # `{executable, script}` for an interpreter running that script (an interpreter alone is never trusted).
    gatewayTrusted: tuple[StrictStr | TrustedScript, ...] = ()
    approvalTimeoutSec: StrictInt | StrictFloat = Field(default=120, gt=0, le=3600)
    # Folders browser_dom upload may take files from (absolute paths); none by default.
    uploadDirs: tuple[StrictStr, ...] = ()

    @field_validator("gatewayTrusted", mode="before")
    @classmethod
    def _executables(cls, entries: object) -> object:
        if not isinstance(entries, list | tuple):
            return entries
        return tuple(_executable_of(entry) for entry in entries)

    @field_validator("gatewayTrusted")
    @classmethod
    def _trusted_absolute(
        cls, executables: tuple[str | TrustedScript, ...]
    ) -> tuple[str | TrustedScript, ...]:
        for executable in executables:
            if isinstance(executable, str) and not is_absolute(executable):
                raise ValueError(
                    f"gatewayTrusted entries are agents' executables (absolute paths); {executable!r} is a "
                    "bare name, and a name never grants trust"
                )
            family = interpreter_of(executable) if isinstance(executable, str) else None
            if family is not None:
                raise ValueError(
                    f"{executable!r} is the interpreter {family}: trusting it alone would trust no agent it "
                    "runs (an agent under an interpreter is the script it runs); trust the script instead, "
                    '{"executable": ..., "script": ...}, or tick the agent\'s "Act without asking" in the '
                    "options page"
                )
        return executables

    @field_validator("uploadDirs")
    @classmethod
    def _absolute(cls, folders: tuple[str, ...]) -> tuple[str, ...]:
        for folder in folders:
            if not folder.startswith("/") and not (len(folder) > 2 and folder[1] == ":"):
                raise ValueError(f"uploadDirs entries must be absolute paths, got {folder!r}")
        return folders

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "mcpTools": self.mcpTools,
            "disabledTools": list(self.disabledTools),
            "gateway": self.gateway,
            "gatewayMcp": self.gatewayMcp,
            "gatewayTrusted": [
                entry if isinstance(entry, str) else entry.model_dump() for entry in self.gatewayTrusted
            ],
            "approvalTimeoutSec": self.approvalTimeoutSec,
        }
        if self.uploadDirs:  # absent means none, as before uploads existed
            wire["uploadDirs"] = list(self.uploadDirs)
        return wire

    def patched(self, patch: dict[str, Any]) -> ToolsConfig:
        """A new config with `patch` applied over this one; raises `ConfigError` naming the bad key."""
        return load_config(self.to_wire() | patch)


def _executable_of(entry: object) -> object:
    if isinstance(entry, dict) and set(entry) == {"executable"}:
        return entry["executable"]
    return entry


def load_stored_config(raw: object) -> ToolsConfig:
    """The config kept by an older version too: trust given to a bare agent name (before agents were known
    by their executable) is dropped, since a name never grants trust, and so is trust given to an interpreter
    alone (before agents under one were told apart by their script), which trusts no agent."""
    if isinstance(raw, dict) and isinstance(raw.get("gatewayTrusted"), list):
        kept = [_executable_of(entry) for entry in raw["gatewayTrusted"]]
        raw = raw | {"gatewayTrusted": [e for e in kept if not isinstance(e, str) or _may_trust(e)]}
    return load_config(raw)


def _may_trust(path: str) -> bool:
    return is_absolute(path) and interpreter_of(path) is None


def load_config(raw: object) -> ToolsConfig:
    if not isinstance(raw, dict):
        raise ConfigError("config must be an object")
    try:
        return ToolsConfig.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"invalid config: {format_validation_error(error)}") from None
