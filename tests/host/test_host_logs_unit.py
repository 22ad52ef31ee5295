"""Log files: the per-server stderr file rotates at start, and names cannot escape the log folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.logs import BACKUPS, MAX_BYTES, open_server_log, server_log_path

pytestmark = pytest.mark.unit


def test_server_logs_rotate_when_large(tmp_path: Path) -> None:
    for generation in range(BACKUPS + 2):
        with open_server_log(tmp_path, "demo") as log:
            log.write(bytes([65 + generation]) * (MAX_BYTES + 1))
    folder = tmp_path / "servers"
    assert sorted(p.name for p in folder.iterdir()) == [
        "demo.log",
        *(f"demo.log.{n}" for n in range(1, BACKUPS + 1)),
    ]
    assert (folder / "demo.log").read_bytes()[:1] == bytes([65 + BACKUPS + 1])
    assert (folder / "demo.log.1").read_bytes()[:1] == bytes([65 + BACKUPS])


def test_small_logs_are_appended(tmp_path: Path) -> None:
    for _ in range(2):
        with open_server_log(tmp_path, "demo") as log:
            log.write(b"x")
    assert (tmp_path / "servers" / "demo.log").read_bytes() == b"xx"


def test_server_names_cannot_escape_the_folder(tmp_path: Path) -> None:
    assert server_log_path(tmp_path, "../../etc/passwd").parent == tmp_path / "servers"
