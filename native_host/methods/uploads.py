"""`files/checkUpload`: the files a page upload may send, checked on disk, where the core cannot look.

Each path is resolved with every symlink followed, and accepted only as a regular file whose resolved path
lies inside one of the resolved allowed folders (compared by path components, so `/a/b` never allows `/a/bc`).
What is uploaded is a copy of the file found at the resolved path without following links (`upload_copies`),
so a link swapped in after this check changes nothing."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path


class UploadRefused(Exception):
    """The first path that may not be uploaded, and why."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"upload refused: {path!r} {why}")


def kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a fifo"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device or special file")


def _resolved(path: str) -> Path:
    """The path with every symlink followed; UploadRefused when it is relative, missing or unreadable."""
    if "\0" in path or not os.path.isabs(path):
        raise UploadRefused(path, "is not an absolute path")
    try:
        return Path(path).resolve(strict=True)
    except FileNotFoundError:
        raise UploadRefused(path, "does not exist") from None
    except (OSError, RuntimeError) as exc:  # a symlink loop, a folder we may not enter
        raise UploadRefused(path, f"cannot be resolved ({exc})") from None


def check_upload(paths: Sequence[str], folders: Sequence[str]) -> list[tuple[str, Path]]:
    """Each path with its resolved path, in order; raises UploadRefused for the first one that may not be
    uploaded."""
    allowed = []
    for folder in folders:
        try:
            allowed.append(_resolved(folder))
        except UploadRefused:
            continue  # a folder that is not there allows nothing
    resolved = []
    for path in paths:
        real = _resolved(path)
        mode = real.stat().st_mode
        if not stat.S_ISREG(mode):
            raise UploadRefused(path, f"is not a regular file ({real} is {kind(mode)})")
        if not any(real.is_relative_to(folder) for folder in allowed):
            where = ", ".join(str(folder) for folder in allowed) or "none"
            shown = f" (it is {real})" if str(real) != path else ""
            raise UploadRefused(path, f"is outside every allowed folder{shown}; allowed: {where}")
        resolved.append((path, real))
    return resolved
