"""The wheels Pyodide loads: the pinned ones fetched with pip, and the core's own, built here from core/."""

from __future__ import annotations

import base64
import hashlib
import os
import zipfile
from pathlib import Path

from buildsys.pins import PYODIDE_PLATFORM, PYODIDE_PYTHON
from buildsys.project import CACHE, ROOT, BuildError, log, project_version, run_quiet, sha256_file


def fetch_wheels(py: Path, pins: dict[str, str], folder: str) -> Path:
    """Download pinned Pyodide wheels with pip (hash-checked by pip and again here)."""
    dest = CACHE / folder
    dest.mkdir(parents=True, exist_ok=True)
    missing = [n for n, h in pins.items() if not (dest / n).exists() or sha256_file(dest / n) != h]
    if missing:
        log(f"fetching {len(missing)} wheel(s) for {PYODIDE_PLATFORM}")
        reqs = dest / "requirements.txt"
        reqs.write_text(
            "".join(f"{_req_of(n)} --hash=sha256:{pins[n]}\n" for n in missing),
        )
        download = [str(py), "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--platform", PYODIDE_PLATFORM, "--python-version", PYODIDE_PYTHON,
                    "--require-hashes", "-r", str(reqs), "-d", str(dest)]  # fmt: skip
        run_quiet(download, "fetching Pyodide wheels")
    for name, want in pins.items():
        got = sha256_file(dest / name)
        if got != want:
            raise BuildError(f"{name}: sha256 {got} does not match the pinned {want}")
    return dest


def _req_of(wheel_name: str) -> str:
    dist, version = wheel_name.split("-")[:2]
    return f"{dist}=={version}"


def build_core_wheel() -> Path:
    """A wheel holding only the `core` package, for Pyodide (reproducible: fixed timestamps, sorted)."""
    version = project_version()
    name = f"tabgate_core-{version}-py3-none-any.whl"
    out = CACHE / "core-wheel" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    sources = sorted(p for p in (ROOT / "core").rglob("*") if p.is_file() and _ships(p))
    dist_info = f"tabgate_core-{version}.dist-info"
    files: dict[str, bytes] = {str(p.relative_to(ROOT)).replace(os.sep, "/"): p.read_bytes() for p in sources}
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: tabgate-core\nVersion: {version}\n"
        "Summary: Tabgate dispatch core (Pyodide build)\nRequires-Dist: pydantic\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tabgate-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{dist_info}/top_level.txt"] = b"core\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    content = b"".join(k.encode() + v for k, v in files.items())
    stamp = out.with_suffix(".sha256")
    if out.exists() and stamp.exists() and stamp.read_text() == hashlib.sha256(content).hexdigest():
        return out
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files.items():
            zf.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    stamp.write_text(hashlib.sha256(content).hexdigest())
    return out


def _ships(p: Path) -> bool:
    return "__pycache__" not in p.parts and p.suffix in {".py", ".typed", ".json"}
