"""Ending a server's whole process tree: its process group, plus descendants that left the group.

A server runs in a session of its own, so its process group holds it and every child that did not detach.
Children that called setsid() escape the group; on Linux they are found through /proc by parent id, and
remembered before the first signal, because once their parent dies they are re-parented and unreachable.
Every tree still running is registered, so the host can kill what a stuck event loop left behind."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path
from typing import Final

PROC: Final = Path("/proc")

type Identity = tuple[int, str]  # pid and its start time, so a reused pid is never signalled


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat fields after the command name: [state, ppid, pgrp, session, …]; None when gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return text.rsplit(")", 1)[1].split()


def _identity(pid: int, fields: list[str]) -> Identity:
    return pid, fields[19]  # field 22 of stat: start time in clock ticks


class ProcessTree:
    """The processes started for one server: the group led by `leader` and every descendant."""

    def __init__(self, leader: int) -> None:
        self.leader = leader  # started with start_new_session, so its pid is also the group and session id
        self._known: set[Identity] = set()

    def members(self) -> set[Identity]:
        """Live members now, plus those seen before that still run (with the same start time)."""
        if not PROC.is_dir():
            return set()
        table: dict[int, list[str]] = {}
        for entry in PROC.iterdir():
            if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
                table[int(entry.name)] = fields
        children: dict[int, list[int]] = {}
        for pid, fields in table.items():
            children.setdefault(int(fields[1]), []).append(pid)
        found = {pid for pid, fields in table.items() if self.leader in (int(fields[2]), int(fields[3]))}
        stack = [self.leader, *found]
        while stack:
            for child in children.get(stack.pop(), []):
                if child not in found:
                    found.add(child)
                    stack.append(child)

        def running(pid: int) -> bool:
            return pid in table and table[pid][0] not in ("Z", "X")  # a zombie has ended already

        now = {_identity(pid, table[pid]) for pid in found if running(pid)}
        seen = {
            ident
            for ident in self._known
            if running(ident[0]) and _identity(ident[0], table[ident[0]]) == ident
        }
        self._known = now | seen
        return self._known

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.leader, signum)
        for pid, _started in self.members():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)

    def alive(self) -> bool:
        if PROC.is_dir():
            return bool(self.members())
        try:
            os.killpg(self.leader, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True


class Registry:
    """Trees not yet ended, so that `kill_all` can end them when the host leaves in a hurry."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trees: set[ProcessTree] = set()

    def add(self, tree: ProcessTree) -> None:
        with self._lock:
            self._trees.add(tree)

    def discard(self, tree: ProcessTree) -> None:
        with self._lock:
            self._trees.discard(tree)

    def kill_all(self) -> int:
        with self._lock:
            trees, self._trees = list(self._trees), set()
        for tree in trees:
            tree.signal(signal.SIGKILL)
        return len(trees)


# Child processes belong to the process, not to any one object: one registry for the host.
RUNNING: Final = Registry()
