"""Where the agent gateway's Unix socket lives and who may use it.

The socket sits in a 0700 folder of the user's runtime directory and is itself 0600; on top of the file modes,
every accepted connection's peer uid is checked (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS), so only the
user who runs the browser can reach it. No TCP port is ever opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import struct
import sys
import tempfile
from pathlib import Path
from typing import Final

ENV_RUNTIME_DIR: Final = "TABGATE_RUNTIME_DIR"
SOCKET_NAME: Final = "gateway.sock"


class GatewaySocketError(Exception):
    """The socket's folder is unsafe or unusable; the message says what to fix."""


def runtime_folder() -> Path:
    """`$TABGATE_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/tabgate`, else a per-user folder in the temp dir."""
    override = os.environ.get(ENV_RUNTIME_DIR, "").strip()
    if override:
        return Path(override).expanduser().absolute()
    xdg = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if xdg and Path(xdg).is_dir():
        return Path(xdg) / "tabgate"
    return Path(tempfile.gettempdir()) / f"tabgate-{os.getuid()}"


def socket_path() -> Path:
    return runtime_folder() / SOCKET_NAME


def prepare_folder(folder: Path) -> None:
    """Create the folder 0700; accept an existing one only if this user owns it (its mode is tightened)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise GatewaySocketError(f"cannot create the gateway folder {folder}: {exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise GatewaySocketError(
            f"{folder} is not a folder; remove it so Tabgate can create its gateway folder"
        )
    if info.st_uid != os.getuid():
        raise GatewaySocketError(f"{folder} belongs to uid {info.st_uid}, not to you; remove it")
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)


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
    sock.listen(16)
    sock.setblocking(False)
    return sock


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end, or None where the platform cannot say."""
    if sys.platform.startswith("linux"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    if sys.platform == "darwin":
        local_peercred = 0x001  # <sys/un.h>: struct xucred {u_int version; uid_t uid; short ngroups; ...}
        with contextlib.suppress(OSError):
            raw = sock.getsockopt(0, local_peercred, 76)
            return int(struct.unpack_from("=II", raw)[1])
    return None


def peer_allowed(sock: socket.socket) -> bool:
    return peer_uid(sock) == os.getuid()
