"""Which URLs a model may open in a tab."""

from __future__ import annotations

from urllib.parse import urlsplit

# Only ordinary web pages: no javascript:, data:, file: or browser-internal pages.
NAVIGABLE_SCHEMES = ("http", "https")


def check_navigable(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in NAVIGABLE_SCHEMES or not parts.netloc:
        raise ValueError(f"url must be an http(s) URL, got {url!r}")
