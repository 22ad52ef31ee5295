"""The host's private copies of checked uploads, which are what Chrome gets (contract §8.2).

Chrome reads an upload by path, and later (when the page reads or sends it), so handing it the user's path
would let a link swapped in after the check choose the file. Each checked file is opened without following
links (`upload_open`) and copied into `<data dir>/uploads/host-*/<upload>/<n>/<its name>`: the page sees the
file's own name, and two files of one name in one upload do not clash.

Folders are 0700 and files 0600. Each host holds a lock on its own folder, so a host that starts removes the
folders no running host holds (left by one that crashed) and never another's. A copy must outlive the upload
call (the page reads it later), so the host keeps the last `KEEP` uploads, at most `KEEP_BYTES` in all, and
removes its folder when it exits."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from ..process.logs import FILE_MODE, private_dir
from .upload_open import open_checked
from .uploads import UploadRefused, check_upload

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES: Final = 256 * 1024 * 1024  # one upload, all its files
MAX_FILES: Final = 256  # one upload
KEEP: Final = 16
KEEP_BYTES: Final = 512 * 1024 * 1024
_CHUNK: Final = 1024 * 1024
_PREFIX: Final = "host-"


def _locked(path: Path) -> int | None:
    """A descriptor of the folder `path` holding its lock, or None when another host holds it (on Windows,
    where uploads are refused anyway, always None: nothing is removed)."""
    if sys.platform == "win32":
        return None
    import fcntl

    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


@dataclass(frozen=True, slots=True)
class _Upload:
    folder: Path
    size: int


class UploadCopies:
    """This host's copies; `copy` is called from worker threads, one at a time."""

    def __init__(self, root: Path, max_bytes: int = MAX_UPLOAD_BYTES) -> None:
        self._root = root
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._own: Path | None = None
        self._own_fd: int | None = None
        self._kept: deque[_Upload] = deque()
        self._count = 0

    def remove_leftovers(self) -> None:
        """Remove the folders of hosts that are gone; a problem is logged, never raised (uploads then say)."""
        try:
            entries = list(self._root.iterdir()) if self._root.is_dir() else []
        except OSError as exc:
            log.warning("cannot look for old upload copies in %s: %s", self._root, exc)
            return
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_symlink() or not entry.is_dir():
                    entry.unlink()  # nothing of ours is a link or a file at this level
                elif (fd := _locked(entry)) is not None:  # no running host holds it
                    try:
                        shutil.rmtree(entry, ignore_errors=True)
                    finally:
                        os.close(fd)

    def _folder(self) -> Path:
        if self._own is not None:
            return self._own
        private_dir(self._root)
        for _ in range(3):  # another host starting may remove a folder before we lock it: make a new one
            folder = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=self._root))
            fd = _locked(folder)
            if fd is None:
                continue
            with contextlib.suppress(FileNotFoundError):
                if os.stat(folder).st_ino == os.fstat(fd).st_ino:  # still the folder we made
                    self._own, self._own_fd = folder, fd
                    return folder
            os.close(fd)
        raise OSError(f"could not claim a folder for upload copies in {self._root}")

    def copy(self, paths: Sequence[str], folders: Sequence[str]) -> list[str]:
        """Check `paths` against `folders`, copy each file opened without following links, and answer the
        copies' paths in order; UploadRefused for the first that may not be uploaded."""
        if len(paths) > MAX_FILES:
            raise UploadRefused(
                paths[MAX_FILES], f"is one file too many: an upload takes at most {MAX_FILES}"
            )
        checked = check_upload(paths, folders)
        if not checked:
            return []
        if sys.platform == "win32":
            raise UploadRefused(
                paths[0], "cannot be uploaded: opening it without following links is not done on Windows"
            )
        with self._lock:
            try:
                upload = Path(tempfile.mkdtemp(prefix=f"{self._count:04d}-", dir=self._folder()))
            except OSError as exc:
                raise _not_copied(paths[0], exc) from None
            self._count += 1
            try:
                copies, size = self._copy_all(checked, upload)
            except BaseException:
                shutil.rmtree(upload, ignore_errors=True)
                raise
            self._kept.append(_Upload(upload, size))
            self._forget_old()
        return copies

    def _copy_all(self, checked: list[tuple[str, Path]], upload: Path) -> tuple[list[str], int]:
        copies, total = [], 0
        for index, (path, resolved) in enumerate(checked):
            source, status = open_checked(path, resolved)
            with open(source, "rb") as reading:
                if total + status.st_size > self._max_bytes:
                    raise _too_big(path, self._max_bytes)
                copy = upload / str(index) / resolved.name
                try:
                    copy.parent.mkdir(mode=0o700)
                    total += _copy_file(reading, copy, self._max_bytes - total)
                    os.utime(copy, ns=(status.st_atime_ns, status.st_mtime_ns))  # the page sees lastModified
                except OSError as exc:  # a full disk, say
                    raise _not_copied(path, exc) from None
                if total > self._max_bytes:  # the file grew while being copied
                    raise _too_big(path, self._max_bytes)
            copies.append(str(copy))
        return copies, total

    def _forget_old(self) -> None:
        while len(self._kept) > KEEP or (
            len(self._kept) > 1 and sum(u.size for u in self._kept) > KEEP_BYTES
        ):
            shutil.rmtree(self._kept.popleft().folder, ignore_errors=True)

    def close(self) -> None:
        """Remove this host's copies (at exit)."""
        with self._lock:
            if self._own is not None:
                shutil.rmtree(self._own, ignore_errors=True)
            if self._own_fd is not None:
                os.close(self._own_fd)
            self._own = self._own_fd = None
            self._kept.clear()


def _not_copied(path: str, error: OSError) -> UploadRefused:
    return UploadRefused(path, f"cannot be copied for Chrome ({error})")


def _too_big(path: str, limit: int) -> UploadRefused:
    return UploadRefused(
        path, f"is too big: the files of one upload are copied, at most {limit} bytes in all"
    )


def _copy_file(reading: BinaryIO, copy: Path, room: int) -> int:
    """Copy what `reading` gives to a new 0600 file, stopping after `room` + 1 bytes; the bytes copied."""
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    written = 0
    with open(fd, "wb") as writing:
        while written <= room and (chunk := reading.read(min(_CHUNK, room + 1 - written))):
            writing.write(chunk)
            written += len(chunk)
    return written
