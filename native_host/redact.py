"""Keeping secrets out of output, logs and error messages."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "<redacted>"
_MIN_SECRET = 3  # shorter values would blank out ordinary words


def redact_url(url: str) -> str:
    """The URL without a password in its user info and without query values (tokens often travel there)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{user}@{host}"
    query = urlencode(
        [(key, REDACTED) for key, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="<>"
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class Scrubber:
    """Replaces known secret values (and secret-bearing URLs) in any text."""

    def __init__(self, secrets: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
        pairs = {secret: REDACTED for secret in secrets if len(secret) >= _MIN_SECRET}
        pairs.update({url: redact_url(url) for url in urls if redact_url(url) != url})
        # Longest first, so a secret that contains another is replaced whole.
        self._pairs = sorted(pairs.items(), key=lambda pair: -len(pair[0]))

    def __call__(self, text: str) -> str:
        for secret, replacement in self._pairs:
            text = text.replace(secret, replacement)
        return text
