"""Keeping secrets out of output, logs and error messages.

Every `Scrubber` also adds what it knows to `LOG_SECRETS`, which the host's log formatter applies to every
line it writes: a value worth keeping out of an answer is worth keeping out of a log file."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "<redacted>"
_MIN_SECRET = 3  # shorter values would blank out ordinary words
# user:password@ in any URL, configured or not (libraries log the URLs they request).
# Bounded repeats keep the search linear on long lines (an unbounded scheme would rescan every letter).
_URL_PASSWORD: Final = re.compile(
    r"(?P<head>[A-Za-z][A-Za-z0-9+.-]{0,31}://[^/\s:@]{0,256}:)[^/\s@]{1,1024}@"
)


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


def _pairs(secrets: Iterable[str], urls: Iterable[str]) -> dict[str, str]:
    pairs = {secret: REDACTED for secret in secrets if len(secret) >= _MIN_SECRET}
    pairs.update({url: redact_url(url) for url in urls if redact_url(url) != url})
    return pairs


def _replace_all(text: str, pairs: list[tuple[str, str]]) -> str:
    for secret, replacement in pairs:
        text = text.replace(secret, replacement)
    return text


def _longest_first(pairs: dict[str, str]) -> list[tuple[str, str]]:
    # Longest first, so a secret that contains another is replaced whole.
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


class LogSecrets:
    """Every secret any Scrubber knows, for the log formatter; shared by the host's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, str] = {}
        self._pairs: list[tuple[str, str]] = []

    def add(self, pairs: dict[str, str]) -> None:
        with self._lock:
            if pairs.items() <= self._known.items():
                return
            self._known.update(pairs)
            self._pairs = _longest_first(self._known)

    def __call__(self, text: str) -> str:
        text = _replace_all(text, self._pairs)
        return _URL_PASSWORD.sub(rf"\g<head>{REDACTED}@", text) if "://" in text else text


# Log files are the process's, not any one object's: one set of secrets for the host.
LOG_SECRETS: Final = LogSecrets()


class Scrubber:
    """Replaces known secret values (and secret-bearing URLs) in any text."""

    def __init__(self, secrets: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
        pairs = _pairs(secrets, urls)
        self._pairs = _longest_first(pairs)
        LOG_SECRETS.add(pairs)

    def __call__(self, text: str) -> str:
        return _replace_all(text, self._pairs)
