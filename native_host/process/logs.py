"""Log files: the host's own rotating log, and one stderr file per MCP server. Never stdout.

Folders are created 0700 and files 0600 (contract §2), and every line passes through `KNOWN_SECRETS`."""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
from pathlib import Path
from typing import BinaryIO, Final

from ..config.redact import KNOWN_SECRETS

HOST_LOG: Final = "host.log"
MAX_BYTES: Final = 1024 * 1024
BACKUPS: Final = 3
ENV_LOG_LEVEL: Final = "TABGATE_LOG_LEVEL"
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600


def private_dir(directory: Path) -> Path:
    """`directory`, created if needed, readable by its owner only (also when an older version made it)."""
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    directory.chmod(DIR_MODE)
    return directory


def open_private(path: Path, flags: int) -> int:
    """A file descriptor for `path`, which is created 0600 (and made 0600 if it existed)."""
    fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


class _PrivateRotatingHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files, the ones rotation starts included, are 0600."""

    def _open(self):  # type: ignore[no-untyped-def]  # typeshed types the return as the text stream
        fd = open_private(Path(self.baseFilename), os.O_WRONLY | os.O_APPEND)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


class _ScrubbingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return KNOWN_SECRETS.log_line(super().format(record))


def setup_host_logging(directory: Path) -> Path:
    """Send this process's logging to `directory/host.log`; raises OSError when that is impossible."""
    path = private_dir(directory) / HOST_LOG
    handler = _PrivateRotatingHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(_ScrubbingFormatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(os.environ.get(ENV_LOG_LEVEL, "INFO").upper())
    return path


def server_log_path(directory: Path, server: str) -> Path:
    # Server names are validated ^[a-zA-Z0-9_-]+$, but a file name must never be able to escape the folder.
    return directory / "servers" / f"{re.sub(r'[^A-Za-z0-9_-]', '_', server)}.log"


def open_server_log(directory: Path, server: str) -> BinaryIO:
    """The file a server's stderr goes to, rotated when it has grown past MAX_BYTES (a child holds it open,
    so it is rotated at each start rather than while written)."""
    private_dir(directory)
    path = server_log_path(directory, server)
    private_dir(path.parent)
    try:
        if path.stat().st_size > MAX_BYTES:
            for index in range(BACKUPS - 1, 0, -1):
                older = path.with_name(f"{path.name}.{index}")
                if older.exists():
                    older.replace(path.with_name(f"{path.name}.{index + 1}"))
            path.replace(path.with_name(f"{path.name}.1"))
    except FileNotFoundError:
        pass
    return os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND), "ab")
