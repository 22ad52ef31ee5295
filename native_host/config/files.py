"""Files the host writes for the user: replaced whole or not at all, and readable by their owner only.

A write goes to a temporary file in the same folder, is flushed to disk, then takes the target's place with
`os.replace` (atomic on POSIX and Windows); on any failure the temporary file is removed and the target is
left exactly as it was."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Final

PRIVATE_FILE: Final = 0o600
PRIVATE_FOLDER: Final = 0o700


class FileWriteError(Exception):
    """A file could not be written; the file that was there (if any) is unchanged."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}; the file was left unchanged")
        self.path = path
        self.reason = reason


def make_folders(folder: Path, mode: int = PRIVATE_FOLDER) -> None:
    """Create `folder` and its missing parents with `mode`; folders that exist are left as they are."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            break
        missing.append(candidate)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else: theirs to keep
            path.mkdir(mode=mode)
            path.chmod(mode)  # mkdir's mode is filtered by the umask


def kept_or_tightened(path: Path, default: int = PRIVATE_FILE) -> int:
    """The mode for a rewrite of `path`: the owner's bits of the file that is there, else `default`.

    An existing file is never made more open than it was, and loses any group or world access."""
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o700
    except FileNotFoundError:
        return default


def write_atomically(path: Path, data: bytes, *, mode: int, folder_mode: int = PRIVATE_FOLDER) -> None:
    """Replace `path` with `data` (mode `mode`), whole or not at all; a symlink keeps pointing at the file.

    Raises FileWriteError naming the file and why; the old file is then untouched."""
    target = Path(os.path.realpath(path))
    try:
        make_folders(target.parent, folder_mode)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise FileWriteError(path, exc.strerror or str(exc)) from exc
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            if os.name != "nt":
                os.fchmod(out.fileno(), mode)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise FileWriteError(path, exc.strerror or str(exc)) from exc
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a failure here loses nothing already visible."""
    if os.name == "nt":
        return
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
