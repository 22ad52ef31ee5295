"""Who is at the other end of the gateway socket, as the OS tells it (contract §8.1).

A peer is accepted only if it is `tabgate-host mcp` of this install: its executable is this host's
interpreter (realpaths compared) and its command line is `<python> <this install's tabgate-host script> mcp`,
the only way the console script runs (a shebang script, so the kernel puts the interpreter first). The agent
is the peer's parent process: the program that started `tabgate-host mcp` over stdio. Its executable path, and
for an interpreter the script it runs (`interpreters.py`, from the same reading of /proc), is what grants bind
to; the name the agent sends in its MCP `clientInfo` is only a label. The peer's script path must be absolute:
a relative one would be resolved against a working folder the peer can change between start and check.

Linux reads /proc (pid from SO_PEERCRED). macOS (untested here) asks libproc and sysctl (pid from
LOCAL_PEERPID): `proc_pidpath` for the executable, `proc_pidinfo(PROC_PIDTBSDINFO)` for the parent,
`KERN_PROCARGS2` for the command line.

What this does not stop (docs/architecture.md, "Threat model"): a process of the same user that rewrites
its own argv memory, or starts `tabgate-host mcp` and then replaces itself with another program by exec()
before the peer connects; a process of the user that hostile can also ptrace or reconfigure the agents
themselves. It does stop what matters for consent: a program naming itself `codex` is not codex, a Node script
is not every Node script, and a raw socket client is not an agent.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from core.agents.identity import Runs

from .interpreters import runs_of

SCRIPT_NAME: Final = "tabgate-host"


class PeerRefused(Exception):
    """The peer is not `tabgate-host mcp` of this install (or the OS would not say); the message says why."""


@dataclass(frozen=True, slots=True)
class Process:
    executable: str  # realpath of the running program
    argv: list[str]
    parent: int
    cwd: str  # read once with the rest; "" where unknown (macOS)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _linux_process(pid: int) -> Process:
    base = Path("/proc") / str(pid)
    try:
        executable = os.readlink(base / "exe")
        cwd = os.readlink(base / "cwd")
        argv = (base / "cmdline").read_bytes().split(b"\0")
        stat_fields = (base / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError as exc:
        raise PeerRefused(f"process {pid} cannot be inspected: {exc}") from None
    if executable.endswith(" (deleted)"):
        raise PeerRefused(f"process {pid} runs a program that was deleted")
    if argv and argv[-1] == b"":
        argv.pop()
    return Process(_real(executable), [os.fsdecode(arg) for arg in argv], int(stat_fields[1]), cwd)


def _darwin_process(pid: int) -> Process:  # pragma: no cover - macOS only, untested here
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
    path = ctypes.create_string_buffer(4096)  # PROC_PIDPATHINFO_MAXSIZE
    if libc.proc_pidpath(pid, path, ctypes.sizeof(path)) <= 0:
        raise PeerRefused(f"process {pid} cannot be inspected (proc_pidpath)")
    info = ctypes.create_string_buffer(136)  # struct proc_bsdinfo
    proc_pidtbsdinfo = 3
    if libc.proc_pidinfo(pid, proc_pidtbsdinfo, 0, info, ctypes.sizeof(info)) != ctypes.sizeof(info):
        raise PeerRefused(f"process {pid} cannot be inspected (proc_pidinfo)")
    # pbi_flags, pbi_status, pbi_xstatus, pbi_pid, then pbi_ppid
    parent = struct.unpack_from("=I", info.raw, 16)[0]
    ctl_kern, kern_procargs2, kern_argmax = 1, 49, 8
    size = ctypes.c_size_t(ctypes.sizeof(ctypes.c_int))
    argmax = ctypes.c_int()
    mib = (ctypes.c_int * 2)(ctl_kern, kern_argmax)
    libc.sysctl(mib, 2, ctypes.byref(argmax), ctypes.byref(size), None, 0)
    buffer = ctypes.create_string_buffer(argmax.value or 1 << 18)
    size = ctypes.c_size_t(ctypes.sizeof(buffer))
    mib3 = (ctypes.c_int * 3)(ctl_kern, kern_procargs2, pid)
    if libc.sysctl(mib3, 3, buffer, ctypes.byref(size), None, 0) != 0:
        raise PeerRefused(f"process {pid} cannot be inspected (KERN_PROCARGS2)")
    raw = buffer.raw[: size.value]
    argc = struct.unpack_from("=i", raw)[0]
    rest = raw[4:].split(b"\0", 1)[1].lstrip(b"\0")  # skip the exec path and its padding
    argv = [os.fsdecode(arg) for arg in rest.split(b"\0")[:argc]]
    return Process(_real(os.fsdecode(path.value)), argv, int(parent), "")


def process(pid: int) -> Process:
    if sys.platform.startswith("linux"):
        return _linux_process(pid)
    if sys.platform == "darwin":
        return _darwin_process(pid)
    raise PeerRefused(f"this system ({sys.platform}) cannot say which program a socket peer is")


@dataclass(frozen=True, slots=True)
class Install:
    """What a `tabgate-host mcp` of this install looks like to the OS."""

    interpreters: frozenset[str]
    script: str

    @classmethod
    def current(cls) -> Install:
        # The OS's word for this very process too: a macOS framework build's `python3` stub re-executes
        # Python.app, so there the running program is not sys.executable.
        interpreters = {_real(sys.executable)}
        with contextlib.suppress(PeerRefused):
            interpreters.add(process(os.getpid()).executable)
        scripts = sysconfig.get_path("scripts")
        return cls(frozenset(interpreters), _real(str(Path(scripts) / SCRIPT_NAME)))

    def is_agent_server(self, peer: Process) -> bool:
        argv = peer.argv
        return (
            peer.executable in self.interpreters
            and len(argv) == 3
            and argv[2] == "mcp"
            and os.path.isabs(argv[1])
            and _real(argv[1]) == self.script
        )


@dataclass(frozen=True, slots=True)
class AgentProgram:
    """The program an agent is, as the OS tells it: its executable and, for an interpreter, what it runs."""

    executable: str
    runs: Runs | None


def agent_program(pid: int, install: Install) -> AgentProgram:
    """The program whose `tabgate-host mcp` (pid `pid`) connected; PeerRefused otherwise."""
    peer = process(pid)
    if len(peer.argv) == 3 and not os.path.isabs(peer.argv[1]):
        raise PeerRefused(
            f"process {pid} was started by the relative path {peer.argv[1][:200]!r}, which cannot be checked "
            "(its working folder may have changed since); start `tabgate-host` by its absolute path, as "
            "`tabgate-host connect` writes it"
        )
    if not install.is_agent_server(peer):
        raise PeerRefused(
            f"process {pid} ({' '.join(peer.argv)[:200]!r}, {peer.executable}) is not `tabgate-host mcp` "
            f"of this install ({install.script})"
        )
    if peer.parent <= 1:
        raise PeerRefused(f"process {pid} has no parent left (its agent exited)")
    with contextlib.suppress(PeerRefused):
        agent = process(peer.parent)
        return AgentProgram(agent.executable, runs_of(agent.executable, agent.argv, agent.cwd))
    raise PeerRefused(f"the agent of process {pid} (process {peer.parent}) cannot be inspected")
