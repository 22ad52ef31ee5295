"""Whether a page could read a response itself (core/web/cors.py): what the devtools show of a body."""

from __future__ import annotations

import pytest

from core.web.cors import page_could_read

pytestmark = pytest.mark.unit

PAGE = "https://shop.example"


@pytest.mark.parametrize(
    ("response_url", "headers", "readable"),
    [
        ("https://shop.example/api/cart", {}, True),  # its own origin
        ("data:text/plain,hi", {}, True),  # no site: what the page made
        ("https://bank.example/me.js", {}, False),  # no CORS header: an opaque answer to the page
        ("https://bank.example/me", {"Access-Control-Allow-Origin": "*"}, True),
        ("https://api.shop.example/cart", {"access-control-allow-origin": "https://shop.example"}, True),
        ("https://api.shop.example/cart", {"Access-Control-Allow-Origin": "https://other.example"}, False),
        ("https://api.shop.example/cart", {"Access-Control-Allow-Origin": "null"}, False),
        ("https://shop.example:8443/x", {}, False),  # another port is another origin
    ],
)
def test_a_page_reads_its_own_origin_and_what_cors_lets_it_read(
    response_url: str, headers: dict[str, str], readable: bool
) -> None:
    assert page_could_read(PAGE, response_url, headers) is readable


def test_a_page_of_no_known_site_reads_only_what_anyone_may() -> None:
    assert page_could_read(None, "https://bank.example/me", {"Access-Control-Allow-Origin": "*"}) is True
    assert page_could_read(None, "https://bank.example/me", {"Access-Control-Allow-Origin": "null"}) is False
