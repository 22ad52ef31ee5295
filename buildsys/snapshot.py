"""Python's memory snapshot: the interpreter after `import core.runtime.bridge`, restored by
extension/worker/py_boot.mjs."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from buildsys.pins import PYODIDE_RUNTIME
from buildsys.project import CACHE, ROOT, BuildError, log, run, sha256_file
from buildsys.site_image import SITE_IMAGE

SNAPSHOT = "python/snapshot.bin"


def make_snapshot(staging: Path) -> dict[str, object]:
    """The memory snapshot of the staged extension's Python after `import core.runtime.bridge`, made in Node.

    Snapshots are not byte-reproducible (heap layout depends on the run), so one is cached per set of inputs:
    the same sources give the same shipped snapshot, and its sha256 goes into build-info.json.
    """
    node = shutil.which("node")
    if node is None:
        raise BuildError("node (Node.js 20) is needed to make Python's memory snapshot; install Node.js.")
    inputs = hashlib.sha256()
    boot = staging / "worker" / "py_boot.mjs"
    for part in (staging / SITE_IMAGE, boot, ROOT / "tools" / "make_snapshot.mjs",
                 *(staging / "pyodide" / n for n in PYODIDE_RUNTIME)):  # fmt: skip
        inputs.update(sha256_file(part).encode())
    cached = CACHE / "snapshot" / inputs.hexdigest()
    if not (cached / "meta.json").exists():
        log("making Python's memory snapshot (Node)")
        # With stack switching, as in Chrome: the interpreter notes at start-up whether it can suspend.
        out = run([node, "--experimental-wasm-stack-switching", str(ROOT / "tools" / "make_snapshot.mjs"),
                   str(staging)], stdout=subprocess.PIPE)  # fmt: skip
        layout = json.loads(out.stdout.strip().splitlines()[-1])
        tmp = cached.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        shutil.move(staging / SNAPSHOT, tmp / "snapshot.bin")
        (tmp / "meta.json").write_text(json.dumps(layout))
        shutil.rmtree(cached, ignore_errors=True)
        tmp.rename(cached)
    shutil.copy2(cached / "snapshot.bin", staging / SNAPSHOT)
    layout = json.loads((cached / "meta.json").read_text())
    return {"file": SNAPSHOT, "sha256": sha256_file(staging / SNAPSHOT), **layout}
