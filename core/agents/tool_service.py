"""What the agent gateway asks of the service (core/runtime/facade.py): called by method, never by sending
the service a runtime message of its own."""

from __future__ import annotations

from typing import Any, Protocol

from core.messages.runtime_messages import Dispatch

type Answer = dict[str, Any]


class ToolService(Protocol):
    def config(self) -> Answer:
        """The tools config as the runtime API answers `config/get`."""
        ...

    async def set_config(self, patch: dict[str, Any]) -> Answer:
        """The config changed by `patch` (the new config to store), or `{error}`."""
        ...

    async def offered_tools(self) -> list[Answer]:
        """The tools offered now, as the registry lists them (`tools` without what pages are shown)."""
        ...

    async def dispatch(self, message: Dispatch) -> Answer:
        """One call, answered as the runtime API answers `dispatch`."""
        ...
