"""Lint tier: the code stays typed and tidy; any finding fails the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)} found problems:\n{proc.stdout}\n{proc.stderr}"


def test_ruff_check_finds_nothing() -> None:
    _run(str(BIN / "ruff"), "check", "core", "native_host", "tests", "build.py", "buildsys")


def test_ruff_format_leaves_everything_as_is() -> None:
    _run(str(BIN / "ruff"), "format", "--check", "core", "native_host", "tests", "build.py", "buildsys")


def test_mypy_strict_on_core_and_native_host() -> None:
    _run(str(BIN / "mypy"), "--strict", "core", "native_host")


def test_mypy_strict_on_the_build() -> None:
    _run(str(BIN / "mypy"), "--strict", "build.py", "buildsys")
