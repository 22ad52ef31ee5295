"""`python3 build.py` as a command: it runs on the standard library alone and says what it cannot do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buildsys.identity import extension_id
from buildsys.project import ROOT
from buildsys.tiers import junit_counts

pytestmark = pytest.mark.unit


def _build_py(*args: str) -> subprocess.CompletedProcess[str]:
    # -S -s -E: no site-packages and no environment, as on a fresh machine before .venv exists.
    return subprocess.run(
        [sys.executable, "-S", "-s", "-E", "build.py", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_build_py_and_its_steps_need_only_the_standard_library() -> None:
    proc = _build_py("id")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == extension_id()


def test_an_unknown_command_is_named_and_fails() -> None:
    proc = _build_py("deploy")
    assert proc.returncode == 2
    assert "unknown command 'deploy'; use build, test, run, bench" in proc.stderr


def test_skipped_tests_count_as_not_passed(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    report.write_text(
        '<testsuites><testsuite tests="5" failures="1" errors="1" skipped="1"/>'
        '<testsuite tests="2" failures="0" errors="0" skipped="0"/></testsuites>'
    )
    assert junit_counts(report) == (4, 3)


def test_a_tier_without_a_report_counts_as_failed(tmp_path: Path) -> None:
    assert junit_counts(tmp_path / "missing.xml") == (0, 1)


def test_bench_refuses_a_name_it_does_not_have_naming_the_benchmarks_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.support import bench

    monkeypatch.setattr(bench, "ROOT", tmp_path)
    assert bench.main(["gateway", "gatewy"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark named gatewy;" in err
    assert all(name in err for name in bench.BENCHES)
    assert not (tmp_path / "dist").exists()


def test_a_named_bench_run_keeps_the_whole_runs_figures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.support import bench

    whole = tmp_path / "dist" / "bench.json"
    whole.parent.mkdir()
    whole.write_text('{"figures": []}')
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setitem(bench.BENCHES, "one", lambda: [bench.Figure("one_figure", 1.0, "ms", "≤ 2")])
    assert bench.main(["one"]) == 0
    assert whole.read_text() == '{"figures": []}'
    partial = json.loads((tmp_path / "dist" / "bench-partial.json").read_text())
    assert partial["benchmarks"] == ["one"]
    assert [f["name"] for f in partial["figures"]] == ["one_figure"]
    assert partial["figures"][0]["meets_target"] is True
