"""Where the agent gateway's Unix socket lives and who may use it.

The place comes from the user's identity alone, never from the environment: the host Chrome starts has the
desktop's environment (`XDG_RUNTIME_DIR`, on macOS a per-user `TMPDIR`), while agents start `tabgate-host mcp`
with a stripped one (the MCP SDKs pass only HOME, LOGNAME, PATH, SHELL, TERM, USER; codex adds LANG, LC_ALL,
TMPDIR, TZ), so anything read from the environment differs between the two sides. The candidates, in order:

- Linux: `/run/user/<uid>/tabgate` when `/run/user/<uid>` is a folder of this user (logind's runtime folder);
  then `/tmp/tabgate-<uid>` (the fixed /tmp, not `tempfile.gettempdir()`, which follows TMPDIR).
- macOS (untested here): the per-user temporary folder the OS reports through `confstr`
  (`_CS_DARWIN_USER_TEMP_DIR`, `/var/folders/…/T/`, the same for every process of the user whatever TMPDIR
  says) + `tabgate`; then `/tmp/tabgate-<uid>`.

The host listens in the first candidate; `tabgate-host mcp` tries each in order, so a host started before or
after logind created the user's folder is still found. `TABGATE_RUNTIME_DIR` replaces the list for tests
that isolate a host (set on both sides or neither).

The folder must be a real folder (not a symlink), owned by the user and 0700 — checked by the host before it
binds and by the agent before it connects, so another user cannot pre-create it to catch or serve agents. The
socket is 0600, and every accepted connection's peer uid is checked too; which program the peer is comes
from `peers.py`. No TCP port is ever opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import struct
import sys
from pathlib import Path
from typing import Final

ENV_RUNTIME_DIR: Final = "TABGATE_RUNTIME_DIR"
SOCKET_NAME: Final = "gateway.sock"
RUN_USER: Final = Path("/run/user")
FIXED_TMP: Final = Path("/tmp")
_CS_DARWIN_USER_TEMP_DIR: Final = 65537  # <unistd.h>; Python's os.confstr accepts the number


class GatewaySocketError(Exception):
    """The socket's folder is unsafe or unusable; the message says what to fix."""


def _darwin_user_temp() -> Path | None:
    with contextlib.suppress(OSError, ValueError):
        value = os.confstr(_CS_DARWIN_USER_TEMP_DIR)
        if value:
            return Path(value)
    return None


def runtime_folders(
    *, run_user: Path | None = None, tmp: Path | None = None, platform: str = sys.platform
) -> list[Path]:
    """The gateway folders to use, best first (see the module docstring); `run_user`/`tmp` only for tests."""
    override = os.environ.get(ENV_RUNTIME_DIR, "").strip()
    if override:
        return [Path(override).expanduser().absolute()]
    run_user = RUN_USER if run_user is None else run_user
    tmp = FIXED_TMP if tmp is None else tmp
    uid = os.getuid()
    found: list[Path] = []
    if platform.startswith("linux"):
        logind = run_user / str(uid)
        with contextlib.suppress(OSError):
            info = logind.lstat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == uid:
                found.append(logind / "tabgate")
    elif platform == "darwin" and (user_temp := _darwin_user_temp()) is not None:
        found.append(user_temp / "tabgate")
    found.append(tmp / f"tabgate-{uid}")
    return found


def socket_paths() -> list[Path]:
    """Where agents look for the host, in order."""
    return [folder / SOCKET_NAME for folder in runtime_folders()]


def socket_path() -> Path:
    """Where the host listens: the best place."""
    return socket_paths()[0]


def check_folder(folder: Path) -> None:
    """Raise unless `folder` is a folder (not a symlink) of this user that nobody else may enter."""
    try:
        info = folder.lstat()
    except OSError as exc:
        raise GatewaySocketError(f"cannot use the gateway folder {folder}: {exc}") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise GatewaySocketError(f"{folder} is not a folder; remove it so Tabgate can create its own")
    if info.st_uid != os.getuid():
        raise GatewaySocketError(f"{folder} belongs to uid {info.st_uid}, not to you; remove it")
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise GatewaySocketError(f"{folder} may be entered by other users (mode {mode:o}); remove it")


def prepare_folder(folder: Path) -> None:
    """Create the folder 0700; an existing one must pass `check_folder` (a too-open mode of our own folder is
    tightened first, never followed through a symlink)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        pass  # a symlink to nowhere or a file: check_folder says which
    except OSError as exc:
        raise GatewaySocketError(f"cannot create the gateway folder {folder}: {exc}") from None
    with contextlib.suppress(OSError):
        info = folder.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
            os.chmod(folder, 0o700, follow_symlinks=False)
    check_folder(folder)


def remove_stale(path: Path) -> None:
    """A host that was killed leaves its socket file behind; one that nobody answers on is removed."""
    if not path.exists() and not path.is_symlink():
        return
    if path.is_symlink() or not stat.S_ISSOCK(path.lstat().st_mode):
        raise GatewaySocketError(f"{path} exists and is not a socket; remove it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            path.unlink(missing_ok=True)
            return
        raise GatewaySocketError(f"cannot check the existing socket {path}: {exc}") from None
    else:
        raise GatewaySocketError(f"another Tabgate host already serves agents on {path}")
    finally:
        probe.close()


def bind_listening_socket(path: Path) -> socket.socket:
    """A listening Unix socket at `path`, created 0600 (umask set around bind, so there is no window)."""
    prepare_folder(path.parent)
    remove_stale(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise GatewaySocketError(f"cannot listen on {path}: {exc}") from None
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    sock.listen(64)
    sock.setblocking(False)
    return sock


def peer_credentials(sock: socket.socket) -> tuple[int, int] | None:
    """(pid, uid) of the process at the other end, or None where the platform cannot say.

    Linux: SO_PEERCRED. macOS (untested here): LOCAL_PEERCRED for the uid, LOCAL_PEERPID for the pid."""
    if sys.platform.startswith("linux"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, _gid = struct.unpack("3i", creds)
        return int(pid), int(uid)
    if sys.platform == "darwin":
        sol_local, local_peercred, local_peerpid = 0, 0x001, 0x002  # <sys/un.h>
        with contextlib.suppress(OSError):
            raw = sock.getsockopt(sol_local, local_peercred, 76)  # xucred {u_int version; uid_t uid; …}
            uid = struct.unpack_from("=II", raw)[1]
            pid = struct.unpack("=i", sock.getsockopt(sol_local, local_peerpid, 4))[0]
            return int(pid), int(uid)
    return None
