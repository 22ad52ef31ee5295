"""What a server says unasked: its lists changed (told to the browser; the tools listed again first) and its
log messages (kept, and told to the browser). An initialize-era server notifies; a 2026-07-28 server tells
its list changes on a `subscriptions/listen` stream the host keeps open while the connection runs."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client, MCPError
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from ..config.redact import Scrubber
from .replies import describe
from .server_logs import LogRing

log = logging.getLogger(__name__)

type Notify = Callable[[str, dict[str, Any]], None]  # a host → browser notification: method, params

# A server's list_changed notification → the one the host sends the browser, with `{server}`.
LIST_CHANGED: Final[dict[type[BaseModel], str]] = {
    types.ToolListChangedNotification: "notifications/tools/list_changed",
    types.ResourceListChangedNotification: "notifications/resources/list_changed",
    types.PromptListChangedNotification: "notifications/prompts/list_changed",
}
SERVER_LOG: Final = "notifications/serverLog"
# A 2026-07-28 server logs only for requests that ask it to, from a level: every level, as an initialize-era
# server logs without being asked (the host sends no logging/setLevel).
SERVER_LOG_LEVEL: Final = "debug"


def drop(method: str, params: dict[str, Any]) -> None:
    """The notify of a manager nobody listens to (doctor)."""


class ServerMessages:
    """The message and logging callbacks of one server's client."""

    def __init__(
        self,
        name: str,
        scrub: Scrubber,
        logs: LogRing,
        notify: Notify,
        group: anyio.abc.TaskGroup,
        refresh: Callable[[], Awaitable[bool]],
    ) -> None:
        self.name = name
        self.scrub = scrub
        self.logs = logs
        self._notify = notify
        self._group = group
        self._refresh = refresh

    async def on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, Exception):
            log.info("server %s sent something unreadable: %s", self.name, self.scrub(describe(message)))
        elif isinstance(message, types.ToolListChangedNotification):
            self._group.start_soon(self._refresh_quietly)
        elif type(message) in LIST_CHANGED:
            self._notify(LIST_CHANGED[type(message)], {"server": self.name})

    async def listen(self, client: Client) -> None:
        """Until the run ends, a 2026-07-28 server's `subscriptions/listen` stream open: the SDK hands each of
        its events to `on_message` as the notification it stands for, as an initialize-era server sends it."""
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return  # an initialize-era server notifies on its own
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as events:
                async for _ in events:
                    pass
        except (MCPError, ListenNotSupportedError, SubscriptionLost, TimeoutError) as exc:
            log.info("server %s: no list changes heard: %s", self.name, self.scrub(describe(exc)))

    async def _refresh_quietly(self) -> None:
        """The tools again after the server said they changed; the browser hears of it once they are in."""
        try:
            if await self._refresh():
                self._notify(LIST_CHANGED[types.ToolListChangedNotification], {"server": self.name})
        except (
            MCPError,
            ValidationError,
            TimeoutError,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
        ) as exc:
            log.info("server %s: refreshing tools failed: %s", self.name, self.scrub(describe(exc)))

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        entry = self.logs.add(params.level, params.logger, params.data)
        log.debug("server %s log (%s): %s", self.name, entry["level"], entry["data"])
        note: dict[str, Any] = {"server": self.name, "level": entry["level"], "data": entry["data"]}
        if "logger" in entry:
            note["logger"] = entry["logger"]
        self._notify(SERVER_LOG, note)
