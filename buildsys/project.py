"""The project's folders and the helpers every build step uses (logging, commands, file digests)."""

from __future__ import annotations

import hashlib
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
CACHE = ROOT / ".cache"
DIST = ROOT / "dist"
EXT_SRC = ROOT / "extension"
EXT_OUT = DIST / "extension"


class BuildError(Exception):
    """A build step failed; the message says which and why."""


def log(msg: str) -> None:
    print(f"[tabgate] {msg}", flush=True)


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kw)  # type: ignore[call-overload, no-any-return]


QUIET_TIMEOUT_S = 1800  # a first venv install on a slow link; anything longer is a hang


def run_quiet(cmd: list[str], what: str) -> str:
    """A third-party tool (pip, npm) run for a build step: its own notices and warnings are not Tabgate's
    progress, so its output is kept and shown only in the error when it fails; returns its stdout."""
    try:
        done = subprocess.run(cmd, text=True, capture_output=True, timeout=QUIET_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        raise BuildError(f"{what}: no end after {QUIET_TIMEOUT_S} s ({' '.join(cmd)})") from e
    if done.returncode != 0:
        raise BuildError(f"{what} failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-4000:]}")
    return done.stdout


def project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
