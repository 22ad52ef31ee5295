"""Every error code is taken from core/calls/capabilities.py's table by name: no script and no Python module
holds a bare code (the build writes the table for the scripts; tests/buildsys/test_js_tables.py checks it)."""

from __future__ import annotations

import io
import itertools
import re
import tokenize

import pytest

from buildsys.project import ROOT
from core.calls.capabilities import McpErrorCode

pytestmark = pytest.mark.unit

BARE_CODE = re.compile(r"-32\d{3}\b")


def test_no_extension_source_holds_a_bare_error_code() -> None:
    sources = sorted((ROOT / "extension").rglob("*.js"))
    assert len(sources) > 30, "the extension's scripts were not found"
    found = {
        f"{path.name}:{n}": line.strip()
        for path in sources
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if BARE_CODE.search(line)
    }
    assert found == {}


def test_the_table_names_each_code_once() -> None:
    assert len({int(code) for code in McpErrorCode}) == len(McpErrorCode)


def test_no_python_product_code_holds_a_bare_error_code() -> None:
    """Codes come from McpErrorCode by name; a number in a comment or a docstring is words, not code."""
    table = ROOT / "core" / "calls" / "capabilities.py"
    sources = [
        p for folder in ("core", "native_host") for p in sorted((ROOT / folder).rglob("*.py")) if p != table
    ]
    found = []
    for path in sources:
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
        for before, token in itertools.pairwise(tokens):
            if (
                token.type == tokenize.NUMBER
                and before.string == "-"
                and BARE_CODE.fullmatch(f"-{token.string}")
            ):
                found.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert found == []
