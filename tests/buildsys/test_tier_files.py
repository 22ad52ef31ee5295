"""Each tier's pytest is given its own test files: every test file belongs to exactly one tier, wherever it
sits, and a tier with no file stops the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from buildsys.project import BuildError
from buildsys.tier_files import all_test_files, files_by_tier
from buildsys.tiers import LANES, TIERS

pytestmark = pytest.mark.unit

TWO_TIERS = ("unit", "host")


def write_test(path: Path, marks: str, body: str = "def test_it() -> None:\n    assert True\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"import pytest\n\n{marks}\n\n\n{body}")
    return path


def test_every_test_file_of_the_project_belongs_to_exactly_one_tier() -> None:
    by_tier = files_by_tier(TIERS)
    given = [path for files in by_tier.values() for path in files]
    assert sorted(given) == all_test_files()  # each once, none left out
    assert all(by_tier[tier] for tier in TIERS)


def test_every_tier_runs_in_exactly_one_lane() -> None:
    assert sorted(tier for lane in LANES for tier in lane) == sorted(TIERS)


def test_a_file_without_a_tier_or_with_two_stops_the_run(tmp_path: Path) -> None:
    write_test(tmp_path / "tests" / "a" / "test_fine.py", "pytestmark = pytest.mark.unit")
    write_test(tmp_path / "tests" / "b" / "test_host.py", "pytestmark = pytest.mark.host")
    write_test(tmp_path / "tests" / "a" / "test_unmarked.py", "")
    both = "pytestmark = pytest.mark.unit\n\n\n@pytest.mark.host\ndef test_it() -> None:\n    assert True\n"
    write_test(tmp_path / "tests" / "a" / "test_both.py", "", both)
    with pytest.raises(BuildError) as raised:
        files_by_tier(TWO_TIERS, tmp_path / "tests")
    assert "tests/a/test_unmarked.py (no tier)" in str(raised.value)
    assert "tests/a/test_both.py (unit, host)" in str(raised.value)
    assert "test_fine" not in str(raised.value)


def test_a_tier_with_no_file_stops_the_run(tmp_path: Path) -> None:
    write_test(tmp_path / "tests" / "test_only_unit.py", "pytestmark = pytest.mark.unit")
    with pytest.raises(BuildError, match=r"no test file is marked for tier\(s\) host"):
        files_by_tier(TWO_TIERS, tmp_path / "tests")


def test_a_file_in_a_folder_pytest_does_not_recurse_into_still_runs_in_its_tier(tmp_path: Path) -> None:
    """pytest's default `norecursedirs` skips a folder named build; given the file, pytest runs it."""
    hidden = write_test(tmp_path / "tests" / "build" / "test_hidden.py", "pytestmark = pytest.mark.unit")
    write_test(tmp_path / "tests" / "test_host.py", "pytestmark = pytest.mark.host")
    ini = "[pytest]\nmarkers =\n    unit: u\n    host: h\naddopts = --strict-markers\n"
    (tmp_path / "pytest.ini").write_text(ini)
    assert files_by_tier(TWO_TIERS, tmp_path / "tests")["unit"] == [hidden]
    pytest_run = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-m", "unit"]
    walked = subprocess.run([*pytest_run, "tests"], cwd=tmp_path, capture_output=True, text=True)
    given = subprocess.run([*pytest_run, str(hidden)], cwd=tmp_path, capture_output=True, text=True)
    assert walked.returncode == 5, walked.stdout  # the tree walk finds nothing: why files are given
    assert given.returncode == 0 and "1 passed" in given.stdout, given.stdout
