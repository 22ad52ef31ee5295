"""The gateway's sessions, counted per agent program (contract §8.2: bounds count per agent identity).

A program is what the OS says an agent is (its executable, and what an interpreter runs), never the name it
gives itself: one program cannot shut another out by opening sessions, even when every one of its calls waits
for the person.
- one program holds at most `MAX_AGENT_SESSIONS` sessions: its newcomer takes the place of its own
  longest-idle session with no call running, or is refused when all of its sessions have one;
- all programs hold at most `MAX_SESSIONS`: a newcomer then takes the place of a session of the program
  holding the most (one with nothing running first, then the longest idle; a closed session's questions are
  withdrawn);
- at most `MAX_RUNNING` requests of one program run at once, across its sessions.
"""

from __future__ import annotations

import logging
from typing import Final, Protocol

import anyio

log = logging.getLogger(__name__)

MAX_SESSIONS: Final = 64
MAX_AGENT_SESSIONS: Final = 8
MAX_RUNNING: Final = 16  # per agent program

type ProgramKey = tuple[str, str, str]  # executable, what it runs (kind, target); empty for a native program


class Seat(Protocol):
    """A session as the bounds see it."""

    id: str
    program: ProgramKey
    last_active: float

    @property
    def busy(self) -> bool:
        """A call of it is running (or waiting for the person)."""
        ...

    def close(self) -> None:
        """Close it; its own task finishes the closing."""
        ...


class Program[S: Seat]:
    """What one agent program holds across its sessions."""

    def __init__(self) -> None:
        self.seats: dict[str, S] = {}
        self.running = 0
        self.room = anyio.Event()  # set whenever one of its running requests ends


class Seats[S: Seat]:
    """Every open session, by id and by program."""

    def __init__(self) -> None:
        self._seats: dict[str, S] = {}
        self._programs: dict[ProgramKey, Program[S]] = {}

    def _program(self, key: ProgramKey) -> Program[S]:
        return self._programs.setdefault(key, Program())

    async def until_room(self, key: ProgramKey) -> None:
        """Until the program may run one more request."""
        while (program := self._program(key)).running >= MAX_RUNNING:
            await program.room.wait()

    def started(self, key: ProgramKey) -> None:
        self._program(key).running += 1

    def ended(self, key: ProgramKey) -> None:
        program = self._program(key)
        program.running -= 1
        program.room.set()
        program.room = anyio.Event()
        self._tidy(key)

    def all(self) -> list[S]:
        return list(self._seats.values())

    def take(self, seat: S) -> str | None:
        """Seat a newcomer (closing another session if need be); None once seated, else why it is refused."""
        own = self._program(seat.program).seats
        if len(own) >= MAX_AGENT_SESSIONS:
            idle = [held for held in own.values() if not held.busy]
            if not idle:
                return (
                    f"this agent program already has {MAX_AGENT_SESSIONS} sessions, each with a call running "
                    "or waiting for the person; try again later"
                )
            self._evict(min(idle, key=lambda held: held.last_active))
        if len(self._seats) >= MAX_SESSIONS:
            others = [
                program for key, program in self._programs.items() if key != seat.program and program.seats
            ]
            if not others:
                self._tidy(seat.program)
                return f"{MAX_SESSIONS} sessions are open; try again later"
            biggest = max(others, key=lambda program: len(program.seats)).seats.values()
            self._evict(min(biggest, key=lambda held: (held.busy, held.last_active)))
        self._seats[seat.id] = own[seat.id] = seat
        return None

    def leave(self, seat: S) -> None:
        if self._seats.get(seat.id) is seat:
            del self._seats[seat.id]
        program = self._programs.get(seat.program)
        if program is not None:
            program.seats.pop(seat.id, None)
            self._tidy(seat.program)

    def _tidy(self, key: ProgramKey) -> None:
        """A program with no session and nothing running is forgotten (the map holds only what is open)."""
        program = self._programs.get(key)
        if program is not None and not program.seats and not program.running:
            del self._programs[key]

    def _evict(self, seat: S) -> None:
        log.warning("agent gateway: closing session %s to make room for a new one", seat.id)
        self.leave(seat)  # its slot is free at once
        seat.close()
