"""Log files: the host's own rotating log, and one stderr file per MCP server. Never stdout."""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
from pathlib import Path
from typing import BinaryIO, Final

HOST_LOG: Final = "host.log"
MAX_BYTES: Final = 1024 * 1024
BACKUPS: Final = 3
ENV_LOG_LEVEL: Final = "TABGATE_LOG_LEVEL"


def setup_host_logging(directory: Path) -> Path:
    """Send this process's logging to `directory/host.log`; raises OSError when that is impossible."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / HOST_LOG
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
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
    path = server_log_path(directory, server)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.stat().st_size > MAX_BYTES:
            for index in range(BACKUPS - 1, 0, -1):
                older = path.with_name(f"{path.name}.{index}")
                if older.exists():
                    older.replace(path.with_name(f"{path.name}.{index + 1}"))
            path.replace(path.with_name(f"{path.name}.1"))
    except FileNotFoundError:
        pass
    return path.open("ab")
