"""Opening a checked upload without following a link at any step (contract §8.2).

`check_upload` decides on a path with every symlink resolved; between that and Chrome reading the file, any
folder on the way could be swapped for a link. So the host walks the resolved path again from `/`, one
component at a time, each opened relative to the last with `O_NOFOLLOW`: a component that has become a link
(or anything but a folder) ends the walk. The file itself is opened `O_NONBLOCK` (a FIFO put there cannot make
the open wait) and judged by `fstat` of what was opened: a regular file with one link only, since a hard link
inside the folder can be a file from anywhere."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from .uploads import UploadRefused, kind

# Windows has none of these flags (nor opening relative to a folder): `UploadCopies` refuses uploads there.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _changed(path: str, where: Path, error: OSError) -> UploadRefused:
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        why = f"changed after it was checked: {where} is now a link or not a folder"
    elif error.errno == errno.ENOENT:
        why = f"changed after it was checked: {where} is gone"
    else:
        why = f"cannot be opened ({where}: {error.strerror})"
    return UploadRefused(path, why)


def open_checked(path: str, resolved: Path) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file at `resolved` (a path without links, as checked) and its
    status; UploadRefused naming `path` (what was asked for) when the walk meets a link or the file is not a
    regular file with a single link. The caller closes the descriptor."""
    parts = resolved.parts
    fd = os.open(parts[0], _DIR_FLAGS)
    try:
        for depth, part in enumerate(parts[1:-1], start=2):
            try:
                inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as error:
                raise _changed(path, Path(*parts[:depth]), error) from None
            os.close(fd)
            fd = inner
        try:
            opened = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
        except OSError as error:
            raise _changed(path, resolved, error) from None
    finally:
        os.close(fd)
    try:
        status = os.fstat(opened)
        if not stat.S_ISREG(status.st_mode):
            raise UploadRefused(path, f"is not a regular file ({resolved} is {kind(status.st_mode)})")
        if status.st_nlink != 1:
            raise UploadRefused(
                path,
                f"has {status.st_nlink} hard links ({resolved}): another link may be a file outside the "
                "allowed folders, so it is not uploaded; copy the file into the folder instead",
            )
        os.set_blocking(opened, True)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(opened)
        raise
    return opened, status
