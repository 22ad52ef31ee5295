"""A quiet first run: the build's pip and npm steps print only Tabgate's own progress lines; a tool's own
notices and warnings are shown only when it fails, in the error that names the step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import buildsys.wheels
from buildsys.pins import PYODIDE_PLATFORM, PYODIDE_TEST_WHEELS
from buildsys.project import BuildError, run_quiet
from buildsys.venv_setup import venv_python

pytestmark = pytest.mark.unit


def test_fetching_a_wheel_prints_only_tabgates_own_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # A real pip download into an empty cache: pip's warnings (an index it cannot read, say) stay unprinted.
    monkeypatch.setattr(buildsys.wheels, "CACHE", tmp_path)
    name = next(n for n in PYODIDE_TEST_WHEELS if n.startswith("iniconfig-"))
    buildsys.wheels.fetch_wheels(venv_python(), {name: PYODIDE_TEST_WHEELS[name]}, "wheels")
    out, err = capfd.readouterr()
    assert err == ""
    assert out.splitlines() == [f"[tabgate] fetching 1 wheel(s) for {PYODIDE_PLATFORM}"]


def test_a_failing_tools_own_words_are_in_the_error_that_names_the_step() -> None:
    says = "import sys; print('ERROR: no such version', file=sys.stderr); sys.exit(3)"
    failing = [sys.executable, "-c", says]
    with pytest.raises(BuildError, match=r"(?s)^fetching wheels failed \(exit 3\):.*ERROR: no such version"):
        run_quiet(failing, "fetching wheels")
