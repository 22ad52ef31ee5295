"""The native host port's states (contract §5 `status.host`), which of Chrome's disconnect messages means
which, and which states a wanted host is started again from. The service worker only holds the port: the
build writes these as `port_states.js` (buildsys/js_tables.py), and `extension/worker/host.js` reads Chrome's
message through `CHROME_SAYS` (how long it waits between restarts is core/runtime/worker_timings.py's).
Standard library only: the build reads it before the .venv exists."""

from __future__ import annotations

from enum import StrEnum

# The native messaging host's name (its manifest's file name) and the version of its wire (docs/protocol.md
# §2), which the extension sends in `initialize` and the host answers with: one value for both ends.
HOST_NAME = "dev.tabgate.host"
PROTOCOL_VERSION = "1"


class PortState(StrEnum):
    CONNECTED = "connected"
    NOT_INSTALLED = "not_installed"
    FORBIDDEN = "forbidden"
    EXITED = "exited"
    ERROR = "error"


# chrome.runtime.lastError.message → the state it means; a message none of these is in means ERROR, its words
# kept in `hostError` for the person.
CHROME_SAYS: dict[str, PortState] = {
    "Specified native messaging host not found.": PortState.NOT_INSTALLED,
    "Access to the specified native messaging host is forbidden.": PortState.FORBIDDEN,
    "Native host has exited.": PortState.EXITED,
}
# What a port that closed without lastError is taken to have said: the host process ended.
EXIT_MESSAGE = "Native host has exited."
# The states in which a host that is wanted (the agent gateway is on) is started again by itself.
RESTARTED_WHEN_WANTED = (PortState.EXITED, PortState.ERROR)


def state_for(message: str) -> PortState:
    """The state Chrome's message means (host.js's `hostStateFor` reads the same table)."""
    return next((state for text, state in CHROME_SAYS.items() if text in message), PortState.ERROR)
