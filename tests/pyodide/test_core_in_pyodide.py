"""The core's own tests, run inside the pinned Pyodide under Node with the wheels the extension ships."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.pyodide

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "dist" / "extension" / "pyodide"
TEST_WHEELS = ROOT / ".cache" / "pyodide-test-wheels"


def _cpython_test_count() -> int:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/core"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in out.splitlines() if "::" in line)


def test_every_core_test_passes_inside_pyodide() -> None:
    node = shutil.which("node")
    assert node, "node is needed for the pyodide tier (Node 20 runs the pinned Pyodide)"
    assert (RUNTIME / "pyodide-lock.json").exists(), "build the extension first: python3 build.py"
    assert any(TEST_WHEELS.glob("pytest-*.whl")), (
        "pytest wheels for Pyodide missing: python3 build.py test fetches them"
    )
    # Stack switching lets asyncio.run work inside Pyodide's event loop, as pytest needs for async tests.
    proc = subprocess.run(
        [node, "--experimental-wasm-stack-switching", str(ROOT / "tests/pyodide/run_pytest.mjs"),
         str(RUNTIME), str(TEST_WHEELS), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    tail = "\n".join(line[:400] for line in (proc.stdout + proc.stderr).splitlines()[-40:])
    assert proc.returncode == 0, f"pytest inside Pyodide failed:\n{tail}"
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed, f"no pytest summary from Pyodide:\n{tail}"
    assert int(passed.group(1)) == _cpython_test_count(), f"Pyodide ran a different set of tests:\n{tail}"
