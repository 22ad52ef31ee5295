"""The extension's own pyodide-lock.json, listing only the wheels it ships."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from buildsys.project import CACHE, BuildError, run, sha256_file


def make_lockfile(py: Path, pyodide_dir: Path, wheels: list[Path]) -> Path:
    """The extension's own pyodide-lock.json: the stock lock's platform info with only our wheels in it.

    Generated with pyodide-build's lockfile tool so every entry carries its sha256 and dependencies; the
    stock lock's 350 entries (served from a CDN) are dropped so nothing can point outside the extension.
    """
    work = CACHE / "lock"
    work.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256("".join(sorted(sha256_file(w) for w in wheels)).encode()).hexdigest()
    out = work / "pyodide-lock.json"
    stamp = work / "inputs.sha256"
    if out.exists() and stamp.exists() and stamp.read_text() == key:
        return out
    stock = json.loads((pyodide_dir / "package" / "pyodide-lock.json").read_text())
    # pyodide-lock 0.2.1 checks wheel tags against `platform_arch` and predates the pyemscripten_<abi>
    # platform tag, so the tool sees the ABI name; the output gets the stock platform back below.
    tool_input = {
        **stock,
        "packages": {},
        "info": {**stock["info"], "platform": f"pyemscripten_{stock['info']['abi_version']}"},
    }
    empty = work / "empty-lock.json"
    empty.write_text(json.dumps(tool_input))
    wheel_dir = work / "wheels"
    shutil.rmtree(wheel_dir, ignore_errors=True)
    wheel_dir.mkdir()
    for w in wheels:
        shutil.copy2(w, wheel_dir / w.name)
    pyodide_cli = py.parent / "pyodide"
    run([str(pyodide_cli), "lockfile", "add-wheels", "--input", str(empty), "--output", str(out),
         "--base-path", str(wheel_dir), *[str(wheel_dir / w.name) for w in wheels]],
        stdout=subprocess.DEVNULL)  # fmt: skip
    lock = json.loads(out.read_text())
    lock["info"] = stock["info"]
    out.write_text(json.dumps(lock, indent=1, sort_keys=True))
    for name, pkg in lock["packages"].items():
        if "/" in pkg["file_name"] or ":" in pkg["file_name"]:
            raise BuildError(f"lockfile entry {name} points outside the extension: {pkg['file_name']}")
    stamp.write_text(key)
    return out
