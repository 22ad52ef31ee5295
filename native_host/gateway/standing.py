"""Where an agent stands with Tabgate when the host does not answer it, and what the person should do.

With the gateway's socket missing, an agent cannot tell by itself whether Chrome is closed, the person has not
turned on *Let agents use Tabgate*, or the host Chrome started has stopped. The host therefore keeps a small
state file next to the socket (`host.json`: its pid and whether the gateway is on, `null` from its start until
the browser first says) for as long as it runs, and
`tabgate-host mcp` reads it, never trusting more than a hint: the file must be a regular file of this user in
the checked 0700 folder, and a pid that is no longer alive means the host stopped without saying so (a reused
pid could make a stopped host look alive: the advice is then "turn on…" instead of "restart", nothing more).
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, ValidationError

from .place import SOCKET_NAME, GatewaySocketError, check_folder, prepare_folder

log = logging.getLogger(__name__)

STATE_NAME: Final = "host.json"
STATE_MAX_BYTES: Final = 4096
AGAIN: Final = "Tabgate's tools then work without restarting the agent."


class HostState(BaseModel):
    """What the host says of itself in its state file."""

    model_config = ConfigDict(extra="ignore")
    pid: int
    gateway: bool | None  # None: the host has just started and the browser has not said yet


class Where(StrEnum):
    UP = "up"
    STARTING = "starting"
    NO_BROWSER = "no browser"
    GATEWAY_OFF = "gateway off"
    HOST_DOWN = "host down"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Standing:
    where: Where
    detail: str = ""  # the host's reason, when it refused this agent

    @property
    def advice(self) -> str:
        """What a call answers while Tabgate is not reachable: what is missing and what to do."""
        match self.where:
            case Where.UP:
                return "Tabgate was reachable a moment ago; try again."
            case Where.STARTING:
                return (
                    "Tabgate is not reachable yet: its native host has just started and Chrome has not "
                    "said whether agents may use it. Try again in a few seconds (if this stays, turn on *Let "
                    f"agents use Tabgate* in Tabgate's popup). {AGAIN}"
                )
            case Where.NO_BROWSER:
                return (
                    "Tabgate is not reachable: Chrome with Tabgate is not running. Open Chrome with Tabgate "
                    f"(and turn on *Let agents use Tabgate* in its popup if it is off). {AGAIN}"
                )
            case Where.GATEWAY_OFF:
                return (
                    "Tabgate is not reachable: Chrome with Tabgate is open but does not let agents in. "
                    f"Turn on *Let agents use Tabgate* in Tabgate's popup. {AGAIN}"
                )
            case Where.HOST_DOWN:
                return (
                    "Tabgate is not reachable: its native host is not running. If Chrome is open, Tabgate "
                    "starts it again within seconds (or press Reconnect in Tabgate's popup; `tabgate-host "
                    f"doctor` says what is wrong); if Chrome is closed, open Chrome with Tabgate. {AGAIN}"
                )
            case Where.REFUSED:
                return f"Tabgate's host did not take this agent: {self.detail}"

    @property
    def instructions(self) -> str:
        """The MCP `initialize` instructions: what Tabgate is, and whether the browser is reachable now."""
        about = (
            "Tabgate: tools for the user's Chrome (tabs you open or the user shares with you; acting on a "
            "site asks the user first)."
        )
        if self.where is Where.UP:
            return f"{about} When this session started the browser was reachable."
        return (
            f"{about} When this session started the browser was NOT reachable; its tools are listed but a "
            f"call fails until it is. {self.advice}"
        )


def read_state(folder: Path) -> HostState | None:
    """The host's state file in `folder` (already checked as ours), or None if absent or not believable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(folder / STATE_NAME, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return None
        return HostState.model_validate_json(os.read(fd, STATE_MAX_BYTES))
    except (OSError, ValidationError):
        return None
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    if pid <= 0:  # 0 and negative numbers name process groups, not a host
        return False
    try:
        os.kill(pid, 0)
    except (OSError, OverflowError):  # gone, or another user's process under a reused pid
        return False
    return True


def diagnose(folders: list[Path], refused: str | None = None) -> Standing:
    """Where an agent stands when no host took it, from what `folders` hold (best first)."""
    if refused is not None:
        return Standing(Where.REFUSED, refused)
    stale = False
    for folder in folders:
        try:
            check_folder(folder)
        except GatewaySocketError:
            continue
        state = read_state(folder)
        socket_there = (folder / SOCKET_NAME).exists()
        if state is not None and _alive(state.pid):
            if state.gateway is None:
                return Standing(Where.STARTING)
            if not state.gateway:
                return Standing(Where.GATEWAY_OFF)
            return Standing(Where.UP if socket_there else Where.HOST_DOWN)
        stale = stale or state is not None or socket_there
    return Standing(Where.HOST_DOWN if stale else Where.NO_BROWSER)


class StateFile:
    """The host's side: says whether the gateway is on while the host runs; gone when it stops."""

    def __init__(self, folder: Path) -> None:
        self._path = folder / STATE_NAME
        self._failed = False

    def write(self, *, gateway: bool | None) -> None:
        """Replace the file at once (write aside, then rename); a failure is logged once, never raised."""
        data = HostState(pid=os.getpid(), gateway=gateway).model_dump_json().encode()
        aside = self._path.with_name(f".{STATE_NAME}.{os.getpid()}")
        try:
            prepare_folder(self._path.parent)
            with contextlib.suppress(FileNotFoundError):
                aside.unlink()
            fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.replace(aside, self._path)
        except (OSError, GatewaySocketError) as exc:
            if not self._failed:
                log.warning("cannot write the host's state for agents at %s: %s", self._path, exc)
            self._failed = True

    def remove(self) -> None:
        """Take the file away unless another host (of another Chrome profile) wrote it since."""
        state = read_state(self._path.parent)
        if state is not None and state.pid == os.getpid():
            with contextlib.suppress(OSError):
                self._path.unlink()
