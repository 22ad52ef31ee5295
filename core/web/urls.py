"""Which URLs a model may open in a tab."""

from __future__ import annotations

from core.web.web_url import read_web_url


def check_navigable(url: str) -> None:
    """An http(s) URL whose site Python and Chrome read alike (contract §8.2); UrlRefused (a ValueError, so a
    tool's arguments fail to validate) saying why otherwise."""
    read_web_url(url)
