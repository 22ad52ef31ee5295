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


def project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
