"""One reading of every URL, checked against Chrome itself (contract §8.2): the whole corpus goes through
`new URL()` in the extension's own page, and for every URL the site Python reads is Chrome's `URL.origin` —
and the executor's `originOf` (extension/worker/tab_site.js, what it compares a web page's site by when Python
sends `siteOf: "origin"`) spells it alike — or Python refuses the URL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.calls.tab_scope import shown_site, site_of
from tests.core.url_corpus import DIFFERENTIAL, WPT, tabgate_site
from tests.support.browser import Extension

pytestmark = pytest.mark.e2e

READ_IN_CHROME = """async (inputs) => {
  const { originOf } = await import("../worker/tab_site.js");
  return inputs.map((url) => {
    let origin = null;
    try { origin = new URL(url).origin; } catch { /* Chrome fails the URL */ }
    return { origin, shown: originOf(url) };
  });
}"""


@pytest.fixture(scope="module")
def chrome(ext_without_host: Extension) -> dict[str, dict[str, Any]]:
    """Chrome's reading of every URL of the corpus: its origin (None where it fails) and `originOf`."""
    inputs = sorted({case["input"] for case in [*DIFFERENTIAL, *WPT]})
    answers = ext_without_host.page.evaluate(READ_IN_CHROME, inputs)
    return dict(zip(inputs, answers, strict=True))


def _python(read: Callable[[str], str | None], url: str) -> str | None:
    """What Python reads for `url`; an exception is a reading too (a wrong one: it must read or refuse)."""
    try:
        return read(url)
    except Exception as error:
        return f"raised {error!r}"


def test_every_site_python_reads_is_the_origin_chrome_reads(chrome: dict[str, dict[str, Any]]) -> None:
    wrong = []
    for url, read in chrome.items():
        for how, site in (("to open", _python(tabgate_site, url)), ("of a tab", _python(site_of, url))):
            if site is not None and site != read["origin"]:
                wrong.append(f"{url!r} {how}: Python {site!r}, Chrome {read['origin']!r}")
    assert wrong == []
    assert sum(tabgate_site(url) is not None for url in chrome) >= 150, (
        "most of the corpus is read, not refused"
    )


def test_the_executor_spells_every_site_python_reads_alike(chrome: dict[str, dict[str, Any]]) -> None:
    wrong = [
        f"{url!r}: Python {_python(shown_site, url)!r}, originOf {read['shown']!r}"
        for url, read in chrome.items()
        if _python(site_of, url) is not None and _python(shown_site, url) != read["shown"]
    ]
    assert wrong == []


def test_the_corpus_records_what_this_chrome_reads(chrome: dict[str, dict[str, Any]]) -> None:
    stale = [
        f"{case['input']!r}: recorded {case['chrome']!r}, Chrome {chrome[case['input']]['origin']!r}"
        for case in DIFFERENTIAL
        if case["chrome"] != chrome[case["input"]]["origin"]
    ]
    assert stale == []
