"""One reading of every URL (contract §8.2): the site Tabgate reads is the site Chrome uses (the WHATWG URL
standard), or the URL is refused where the two could differ. The corpus in fixtures/urls holds Chrome's own
answers (tests/e2e/test_url_reading.py checks them against a live Chromium) and a subset of the standard's
test data."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import ValidationError
from url_corpus import DIFFERENTIAL, WPT, tabgate_site

from core.browser.navigation import BrowserNavigationArgs
from core.browser.tab import BrowserTabArgs
from core.calls.tab_scope import is_web_page, shown_site, site_of
from core.web.urls import check_navigable
from core.web.web_url import MAX_URL_CHARS, UrlRefused, read_web_url

pytestmark = pytest.mark.unit

KINDS = sorted({case["kind"] for case in DIFFERENTIAL})


def test_the_corpus_covers_every_kind_of_differential() -> None:
    wanted = {"backslash", "credentials", "controls", "idna", "look-alike", "percent", "ipv4", "ipv6", "port"}
    assert wanted <= set(KINDS)
    assert len(DIFFERENTIAL) >= 200 and len(WPT) >= 200


@pytest.mark.parametrize("kind", KINDS)
def test_each_differential_case_is_read_as_chrome_reads_it_or_refused(kind: str) -> None:
    wrong = []
    for case in (c for c in DIFFERENTIAL if c["kind"] == kind):
        site = tabgate_site(case["input"])
        if site != case["site"] or (site is not None and site != case["chrome"]):
            wrong.append(
                f"{case['input']!r}: Tabgate {site!r}, expected {case['site']!r}, Chrome {case['chrome']!r}"
            )
    assert wrong == []


def test_every_case_of_the_standards_test_data_is_read_as_the_standard_reads_it_or_refused() -> None:
    wrong, read = [], 0
    for case in WPT:
        site = tabgate_site(case["input"])
        read += site is not None
        if site is not None and site != case["origin"]:
            wrong.append(f"{case['input']!r}: Tabgate {site!r}, the standard {case['origin']!r}")
    assert wrong == []
    assert read >= 70, "most web URLs of the standard's data are read, not refused"


def test_the_backslash_attack_is_refused_saying_why() -> None:
    url = "http://b.test\\@a.test/"
    with pytest.raises(UrlRefused) as refused:
        check_navigable(url)
    assert "backslash" in refused.value.why and repr(url) in str(refused.value)
    assert site_of(url) is None and not is_web_page(url) and shown_site(url) == url


@pytest.mark.parametrize(
    ("args", "why"),
    [
        ({"action": "navigate", "url": "http://b.test\\@a.test/"}, "backslash"),
        ({"action": "navigate", "url": "http://a.test@b.test/"}, "credentials"),
        ({"action": "navigate", "url": "http://b.te\tst/"}, "control characters"),
        ({"action": "navigate", "url": "http://%61.test/"}, "percent-encode"),
        ({"action": "navigate", "url": "http://ｅxample.com/"}, "U+FF45 FULLWIDTH LATIN SMALL LETTER E"),
    ],
)
def test_a_refused_url_fails_the_tools_arguments_with_why(args: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError) as failed:
        BrowserNavigationArgs.model_validate(args)
    assert why in str(failed.value)
    with pytest.raises(ValidationError) as failed:
        BrowserTabArgs.model_validate({"action": "create", "url": args["url"]})
    assert why in str(failed.value)


def test_a_tabs_url_with_credentials_is_read_at_its_host_but_never_opened() -> None:
    # Chrome may report a tab's URL with credentials; its site is read after the last @, as URL.origin does.
    assert site_of("https://User:pw@Example.COM:443/x") == "https://example.com"
    assert site_of("http://a.test@b.test/") == "http://b.test"
    with pytest.raises(UrlRefused, match="credentials"):
        check_navigable("http://a.test@b.test/")


def test_a_typed_international_host_is_opened_under_its_punycode_site() -> None:
    assert read_web_url("https://bücher.example/").origin == "https://xn--bcher-kva.example"
    assert read_web_url("https://Bücher.example/").host == "xn--bcher-kva.example"
    assert read_web_url("http://a．test:8080/").origin == "http://a.test:8080"


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("http://" + "0" * 5_000 + "/", None),
        ("http://a.test:" + "0" * 10_000 + "8/", "http://a.test:8"),
        ("http://a.test:" + "9" * 10_000 + "/", None),
        ("http://" + "ü" * 100_000 + ".test/", None),
        ("http://a.test/" + "x" * MAX_URL_CHARS, None),
        ("http://[" + ":" * 10_000 + "]/", None),
    ],
)
def test_huge_parts_are_read_or_refused_without_a_long_computation(url: str, site: str | None) -> None:
    assert tabgate_site(url) == site


def test_no_input_makes_the_reading_raise_anything_but_a_refusal() -> None:
    # Pieces that parsers treat specially, thrown together: every outcome is a site or a refusal.
    pieces = ["http", "https", ":", "/", "//", "\\", "@", "[", "]", "::", ".", "。", "%", "%2e", "0x"]
    pieces += ["1", "09", "a", "ü", "ß", "xn--", "-", "?", "#", "ｅ", "\t", " ", "\u200d", "\u0301"]
    rng, read = random.Random(82), 0
    for _ in range(5_000):
        url = rng.choice(["http://", "https://", ""]) + "".join(
            rng.choice(pieces) for _ in range(rng.randint(1, 9))
        )
        try:
            site = read_web_url(url).origin
        except UrlRefused:
            continue
        read += 1
        assert site.startswith(("http://", "https://")) and site == site_of(url)
    assert read > 100


def test_any_punycode_label_is_read_or_refused() -> None:
    # Python's punycode codec raises more than UnicodeError on digits too large for a code point.
    rng, alphabet = random.Random(3492), "abcdefghijklmnopqrstuvwxyz0123456789-"
    labels = ["9" * 28 + "a", *("".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(3_000))]
    read = sum(tabgate_site(f"https://xn--{label}.test/") is not None for label in labels)
    assert 0 < read < len(labels)
