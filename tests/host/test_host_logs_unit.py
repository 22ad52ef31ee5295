"""Log files: the per-server stderr file rotates at start, names cannot escape the log folder, files are
the owner's only, and no line holds a secret."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from native_host.config.redact import REDACTED, Scrubber
from native_host.process.logs import BACKUPS, MAX_BYTES, open_server_log, server_log_path, setup_host_logging

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


def test_log_folders_are_0700_and_files_0600_rotated_ones_included(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o755)
    logs.chmod(0o755)  # as an older version left it
    previous = logging.getLogger().handlers[:], logging.getLogger().level
    try:
        setup_host_logging(logs)
        for _ in range(BACKUPS + 1):
            logging.getLogger("test").warning("%s", "x" * MAX_BYTES)
        with open_server_log(logs, "demo") as server_log:
            server_log.write(b"started\n")
    finally:
        for handler in logging.getLogger().handlers:
            handler.close()
        logging.getLogger().handlers[:], level = previous
        logging.getLogger().setLevel(level)
    files = sorted(path.name for path in logs.rglob("*") if path.is_file())
    assert files == ["demo.log", "host.log", "host.log.1", "host.log.2", "host.log.3"]
    for path in [logs, *logs.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path


def test_log_lines_hold_no_known_secret_and_no_url_password(tmp_path: Path) -> None:
    scrub = Scrubber(["tok-6d5e4f"], ["https://me:pw-in-config@example.test/mcp"])
    assert scrub("Bearer tok-6d5e4f") == f"Bearer {REDACTED}"
    previous = logging.getLogger().handlers[:], logging.getLogger().level
    try:
        setup_host_logging(tmp_path)
        log = logging.getLogger("test")
        log.warning("header %s", "tok-6d5e4f")
        log.warning("GET https://me:pw-in-config@example.test/mcp")
        log.warning("GET http://someone:unlisted-pw@other.test/x")  # not configured, still a password
        try:
            raise RuntimeError("failed with tok-6d5e4f")
        except RuntimeError:
            log.exception("traceback")
    finally:
        for handler in logging.getLogger().handlers:
            handler.close()
        logging.getLogger().handlers[:], level = previous
        logging.getLogger().setLevel(level)
    text = (tmp_path / "host.log").read_text()
    assert "tok-6d5e4f" not in text and "pw-in-config" not in text and "unlisted-pw" not in text
    assert f"someone:{REDACTED}@other.test" in text and "RuntimeError" in text
