"""`python3 build.py`: dist/extension/ and dist/tabgate-extension-<version>.zip.

The extension is staged in dist/extension.tmp (sources, then what the build adds) and renamed into place
only once whole, so a failed build leaves the last good one.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from buildsys.identity import EXTENSION_KEY, extension_id
from buildsys.js_tables import write_js_tables
from buildsys.lockfile import make_lockfile
from buildsys.message_types import write_message_types
from buildsys.pins import EXTENSION_WHEELS, PYODIDE_VERSION
from buildsys.project import DIST, EXT_OUT, EXT_SRC, ROOT, log, project_version, sha256_file
from buildsys.pyodide_runtime import fetch_pyodide, stage_runtime
from buildsys.site_image import SITE_IMAGE, build_site_image
from buildsys.snapshot import make_snapshot
from buildsys.venv_setup import setup
from buildsys.wheels import build_core_wheel, fetch_wheels


def build(py: Path | None = None) -> Path:
    py = py or setup()
    pyodide_dir = fetch_pyodide()
    wheel_dir = fetch_wheels(py, EXTENSION_WHEELS, "pyodide-wheels")
    wheels = [wheel_dir / n for n in EXTENSION_WHEELS] + [build_core_wheel()]
    lock = make_lockfile(py, pyodide_dir, wheels)
    version = project_version()

    staging = DIST / "extension.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(EXT_SRC, staging)
    # Each file the build adds to the sources is one step here (a file generated from Python's tables too).
    _write_manifest(staging, version)
    write_js_tables(staging)
    write_message_types(py, staging / "message_types.js")
    runtime = staging / "pyodide"
    stage_runtime(pyodide_dir, runtime)
    shutil.copy2(lock, runtime / "pyodide-lock.json")
    for w in wheels:
        shutil.copy2(w, runtime / w.name)
    build_site_image(wheels, staging / SITE_IMAGE)
    python = {
        "siteImage": {"file": SITE_IMAGE, "sha256": sha256_file(staging / SITE_IMAGE)},
        "snapshot": make_snapshot(staging),
    }
    (staging / "build-info.json").write_text(
        json.dumps({"version": version, "pyodide": PYODIDE_VERSION, "coreWheel": wheels[-1].name,
                    "python": python}) + "\n"
    )  # fmt: skip
    shutil.rmtree(EXT_OUT, ignore_errors=True)
    staging.rename(EXT_OUT)

    archive = _zip(EXT_OUT, DIST / f"tabgate-extension-{version}.zip")
    log(f"built {EXT_OUT.relative_to(ROOT)} and {archive.relative_to(ROOT)}")
    print(f"extension id: {extension_id()}")
    return EXT_OUT


def _write_manifest(staging: Path, version: str) -> None:
    """The source manifest with the project's version and the fixed key filled in."""
    manifest = json.loads((EXT_SRC / "manifest.json").read_text())
    manifest["version"] = version
    manifest["key"] = EXTENSION_KEY
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def _zip(folder: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(folder))
    return archive
