"""Which test files each tier runs, read from the files themselves.

Each test file names its tier once, as `pytestmark = pytest.mark.TIER`. A tier's pytest is given exactly its
files: collecting the whole tree and deselecting by marker imported every test module (Playwright, the SDK,
the conformance suite's scenario list) in every tier, a minute each. Files are found by walking `tests/`
here, not by pytest's directory rules, so a folder pytest would not recurse into (its default
`norecursedirs` hid `tests/build` for months) cannot hide a test file from its tier."""

from __future__ import annotations

import ast
from pathlib import Path

from buildsys.project import ROOT, BuildError

TESTS = ROOT / "tests"
# pytest's default `python_files`: the files it would take as test modules.
TEST_FILE_GLOBS = ("test_*.py", "*_test.py")


def all_test_files(tests: Path = TESTS) -> list[Path]:
    """Every test module under `tests`, whatever folder it sits in."""
    found = {path for pattern in TEST_FILE_GLOBS for path in tests.rglob(pattern)}
    return sorted(path for path in found if "__pycache__" not in path.parts)


def marked_tiers(source: str, tiers: tuple[str, ...]) -> list[str]:
    """The tiers a test module's source names as `pytest.mark.TIER`, anywhere in it."""
    return [
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in tiers
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    ]


def files_by_tier(tiers: tuple[str, ...], tests: Path = TESTS) -> dict[str, list[Path]]:
    """Each tier's test files. Raises BuildError naming every file that is not marked with exactly one tier,
    and every tier left with no file (a tier that cannot run must fail, not pass empty)."""
    by_tier: dict[str, list[Path]] = {tier: [] for tier in tiers}
    wrong: list[str] = []
    for path in all_test_files(tests):
        named = marked_tiers(path.read_text(encoding="utf-8"), tiers)
        if len(named) != 1:
            wrong.append(f"{path.relative_to(tests.parent)} ({', '.join(named) or 'no tier'})")
            continue
        by_tier[named[0]].append(path)
    if wrong:
        raise BuildError(
            "each test file must be marked with exactly one tier (pytestmark = pytest.mark.TIER): "
            + "; ".join(wrong)
        )
    empty = [tier for tier, files in by_tier.items() if not files]
    if empty:
        raise BuildError(f"no test file is marked for tier(s) {', '.join(empty)}")
    return by_tier
