"""The URL corpus of fixtures/urls (parser differentials with Chrome's answers, a subset of the WHATWG URL
standard's test data) and the site Tabgate reads for a URL, shared by the unit and the end-to-end tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.calls.tab_scope import site_of
from core.web.urls import check_navigable

CORPUS = Path(__file__).resolve().parent / "fixtures" / "urls"
DIFFERENTIAL: list[dict[str, Any]] = json.loads((CORPUS / "differential.json").read_text("utf-8"))["cases"]
WPT: list[dict[str, Any]] = json.loads((CORPUS / "wpt_urltestdata.json").read_text("utf-8"))["cases"]


def tabgate_site(url: str) -> str | None:
    """The site Tabgate navigates under for `url`; None when it refuses the URL (as a tool's argument)."""
    try:
        check_navigable(url)
    except ValueError:
        return None
    return site_of(url)
