"""The core's own tests, run inside the pinned Pyodide under Node, booted from the built extension the way
its Python worker boots: restored from the build's memory snapshot, and by a full boot (the fallback)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.pyodide

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "dist" / "extension"
TEST_WHEELS = ROOT / ".cache" / "pyodide-test-wheels"


@functools.cache  # both boots compare with the same count: CPython collects tests/core once
def _cpython_test_count() -> int:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/core"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in out.splitlines() if "::" in line)


def _node() -> str:
    node = shutil.which("node")
    assert node, "node is needed for the pyodide tier (Node 20 runs the pinned Pyodide)"
    return node


def test_build_info_names_the_shipped_boot_files_by_their_sha256() -> None:
    python = json.loads((EXTENSION / "build-info.json").read_text())["python"]
    for entry in (python["siteImage"], python["snapshot"]):
        assert hashlib.sha256((EXTENSION / entry["file"]).read_bytes()).hexdigest() == entry["sha256"]
    layout = python["snapshot"]
    assert layout["after"]["tableLength"] > layout["before"]["tableLength"], "pydantic_core is not linked"


@pytest.mark.parametrize("boot", ["snapshot", "full"])
def test_every_core_test_passes_inside_pyodide(boot: str) -> None:
    node = _node()
    assert (EXTENSION / "build-info.json").exists(), "build the extension first: python3 build.py"
    assert any(TEST_WHEELS.glob("pytest-*.whl")), (
        "pytest wheels for Pyodide missing: python3 build.py test fetches them"
    )
    # Stack switching lets asyncio.run work inside Pyodide's event loop, as pytest needs for async tests.
    proc = subprocess.run(
        [node, "--experimental-wasm-stack-switching", str(ROOT / "tests/pyodide/run_pytest.mjs"),
         str(EXTENSION), str(TEST_WHEELS), str(ROOT)],
        capture_output=True, text=True, timeout=900, env={**os.environ, "TABGATE_BOOT": boot},
    )  # fmt: skip
    tail = "\n".join(line[:400] for line in (proc.stdout + proc.stderr).splitlines()[-40:])
    assert proc.returncode == 0, f"pytest inside Pyodide failed:\n{tail}"
    assert ("restored in" if boot == "snapshot" else "full boot in") in proc.stderr, tail
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed, f"no pytest summary from Pyodide:\n{tail}"
    assert int(passed.group(1)) == _cpython_test_count(), f"Pyodide ran a different set of tests:\n{tail}"


def test_a_snapshot_that_does_not_match_its_sha256_is_refused(tmp_path: Path) -> None:
    node = _node()
    ext = tmp_path / "extension"
    shutil.copytree(EXTENSION, ext)
    snapshot = ext / "python" / "snapshot.bin"
    data = bytearray(snapshot.read_bytes())
    data[-1] ^= 0xFF
    snapshot.write_bytes(data)
    script = (
        f"import {{ bootExtensionPython }} from {json.dumps(str(ROOT / 'tests/support/boot_python.mjs'))};"
        f"await bootExtensionPython({json.dumps(str(ext))});"
    )
    proc = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode != 0
    assert "python/snapshot.bin: sha256" in proc.stderr and "is not the built" in proc.stderr
