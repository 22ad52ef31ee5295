"""The site-packages image: every file of the shipped wheels in one file that extension/worker/py_boot.mjs
writes
into Pyodide's file system at boot."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

SITE_IMAGE = "python/site-packages.img"
SITE_IMAGE_MAGIC = b"TGSITE01"


def build_site_image(wheels: list[Path], out: Path) -> None:
    """Every file of the wheels, sorted, in one image: magic, u32 header length, header JSON, bytes."""
    files: dict[str, bytes] = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    files[info.filename] = zf.read(info)
    names = sorted(files)
    header = json.dumps({"files": [[n, len(files[n])] for n in names]}, separators=(",", ":")).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        f.write(SITE_IMAGE_MAGIC + len(header).to_bytes(4, "little") + header)
        for n in names:
            f.write(files[n])
