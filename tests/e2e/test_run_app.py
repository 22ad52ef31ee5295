"""`python3 build.py run` without a display: the headless tour calls a built-in, a browser and an MCP tool,
and leaves nothing behind in the notes it writes to (issue 13)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_the_headless_tour_succeeds_and_leaves_no_note(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.run_app"],
        cwd=ROOT,
        env={**env, "TABGATE_RUN_STATE": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "add_note: success=True" in done.stdout and "delete_note: success=True" in done.stdout, done.stdout
    with sqlite3.connect(tmp_path / "data" / "notes.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM notes").fetchone() == (0,)
