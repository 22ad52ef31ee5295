"""The pinned Pyodide runtime: fetched from npm and checked, then the files that ship staged in the build."""

from __future__ import annotations

import base64
import hashlib
import shutil
import tarfile
from pathlib import Path

from buildsys.pins import PYODIDE_INTEGRITY, PYODIDE_RUNTIME, PYODIDE_VERSION
from buildsys.project import CACHE, BuildError, log, run_quiet

# Pyodide only falls back to its CDN when no packageBaseUrl is given; the extension always gives one, and the
# build blanks the default so that no address outside the extension remains in what ships.
PYODIDE_CDN_DEFAULT = "https://cdn.jsdelivr.net/pyodide/v${U}/full/"


def fetch_pyodide() -> Path:
    """The npm `pyodide` package, checked against its pinned integrity hash; returns the unpacked folder."""
    dest = CACHE / f"pyodide-{PYODIDE_VERSION}"
    tgz = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if (dest / ".verified").exists():
        return dest
    CACHE.mkdir(exist_ok=True)
    if not tgz.exists():
        log(f"fetching pyodide {PYODIDE_VERSION} from the npm registry")
        npm = shutil.which("npm")
        if npm is None:
            raise BuildError("npm is needed to fetch the pinned Pyodide runtime; install Node.js and npm.")
        run_quiet(
            [npm, "pack", "--no-fund", "--no-audit", "--loglevel=error", f"pyodide@{PYODIDE_VERSION}",
             "--pack-destination", str(CACHE)],
            f"npm pack pyodide@{PYODIDE_VERSION}",
        )  # fmt: skip
    algo, _, want = PYODIDE_INTEGRITY.partition("-")
    got = base64.b64encode(hashlib.new(algo, tgz.read_bytes()).digest()).decode()
    if got != want:
        tgz.unlink()
        raise BuildError(f"pyodide tarball integrity mismatch: want {PYODIDE_INTEGRITY}, got {algo}-{got}")
    shutil.rmtree(dest, ignore_errors=True)
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    (dest / ".verified").write_text(PYODIDE_INTEGRITY)
    return dest


def stage_runtime(pyodide_dir: Path, runtime: Path) -> None:
    """The runtime files that ship, into `runtime`, with the CDN default blanked."""
    runtime.mkdir()
    for name in PYODIDE_RUNTIME:
        shutil.copy2(pyodide_dir / "package" / name, runtime / name)
    mjs = runtime / "pyodide.mjs"
    text = mjs.read_text()
    if PYODIDE_CDN_DEFAULT not in text:
        raise BuildError("pyodide.mjs no longer holds the expected CDN default; review the pin")
    mjs.write_text(text.replace(PYODIDE_CDN_DEFAULT, "./"))
