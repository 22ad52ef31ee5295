"""`.venv`: made from the running python3, with the project and its dev extras installed once per change."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from buildsys.project import ROOT, VENV, BuildError, log, run, run_quiet

MIN_PYTHON = (3, 12)


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup() -> Path:
    """Create .venv and install the project with its dev extras when pyproject.toml changed; its python."""
    if sys.version_info < MIN_PYTHON:
        raise BuildError(
            f"Tabgate needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this is "
            f"{sys.version.split()[0]} ({sys.executable}). Install a newer Python (pyenv reads "
            ".python-version here) and run again."
        )
    py = venv_python()
    if not py.exists():
        log(f"creating .venv with {sys.executable}")
        run([sys.executable, "-m", "venv", str(VENV)])
    stamp = VENV / ".tabgate-installed"
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text() != want:
        log("installing tabgate with its dev extras into .venv")
        pip = [str(py), "-m", "pip", "install", "-q"]
        run_quiet([*pip, "--upgrade", "pip"], "upgrading pip in .venv")
        run_quiet([*pip, "-e", f"{ROOT}[dev]"], "installing tabgate into .venv")
        stamp.write_text(want)
    return py
