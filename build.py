#!/usr/bin/env python3
"""Tabgate's build, test, run and bench entry point (standard library only).

    python3 build.py          build dist/extension/ and dist/tabgate-extension-<version>.zip
    python3 build.py test     set up, build, then run every test tier
    python3 build.py run      set up, build, install the host for a dedicated profile, start Chromium
    python3 build.py bench    run the benchmarks; writes dist/bench.json and prints a table
    python3 build.py bench NAME …   only the named benchmarks (dist/bench-partial.json)
    python3 build.py id       print the extension id

Inputs are pinned and verified: the npm `pyodide` package (exact version + integrity hash), the Pyodide
wheels for pydantic and its dependencies (sha256), and the core wheel built here from core/. The steps are
the modules of buildsys/; this file is the command line.
"""

from __future__ import annotations

import subprocess
import sys

from buildsys.extension import build
from buildsys.identity import extension_id
from buildsys.pins import PYODIDE_TEST_WHEELS
from buildsys.project import ROOT, BuildError
from buildsys.tiers import run_tiers
from buildsys.venv_setup import setup
from buildsys.wheels import fetch_wheels


def test(tiers: list[str]) -> int:
    py = setup()
    build(py)
    fetch_wheels(py, PYODIDE_TEST_WHEELS, "pyodide-test-wheels")
    # The pinned npm inputs the tiers use (conformance suite, Node 22): fetched here, never at test time.
    subprocess.run([str(py), "-m", "tests.support.npm_packages"], cwd=ROOT, check=True)
    return run_tiers(py, tiers)


def run_app() -> int:
    py = setup()
    build(py)
    return subprocess.run([str(py), "-m", "tests.support.run_app"], cwd=ROOT).returncode


def bench(names: list[str]) -> int:
    py = setup()
    build(py)
    fetch_wheels(py, PYODIDE_TEST_WHEELS, "pyodide-test-wheels")
    return subprocess.run([str(py), "-m", "tests.support.bench", *names], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "build"
    try:
        if cmd == "build":
            build()
            return 0
        if cmd == "test":
            return test(argv[1:])
        if cmd == "run":
            return run_app()
        if cmd == "bench":
            return bench(argv[1:])
        if cmd == "id":
            print(extension_id())
            return 0
    except BuildError as e:
        print(f"build.py: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(f"build.py: command failed ({e.returncode}): {' '.join(map(str, e.cmd))}", file=sys.stderr)
        return 2
    print(f"build.py: unknown command {cmd!r}; use build, test, run, bench", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
