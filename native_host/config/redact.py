"""Keeping secrets out of output, logs and error messages.

Every `Scrubber` also adds what it knows to `KNOWN_SECRETS`, the process's one set: the host's log formatter
applies it to every line it writes, and the dispatcher to every result it sends the browser (tool results and
resource contents included), so a configured secret that a server echoes never reaches the history or an
agent. One rule (`worth_hiding`) decides which values count, everywhere."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
_MIN_SECRET = 4  # shorter values would blank out ordinary words
# Values that configure rather than guard (DEBUG=true, PORT=8080): hiding them would blank out ordinary text.
_TRIVIAL: Final = re.compile(r"(?i)true|false|yes|no|on|off|null|none|[+-]?\d+(?:\.\d+)?")
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
        [(key, REDACTED) for key, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="[]"
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def worth_hiding(value: str) -> bool:
    """Whether a configured value is hidden wherever it appears: long enough, not a plain word or number."""
    return len(value) >= _MIN_SECRET and _TRIVIAL.fullmatch(value) is None


def _pairs(secrets: Iterable[str], urls: Iterable[str]) -> dict[str, str]:
    pairs = {secret: REDACTED for secret in secrets if worth_hiding(secret)}
    pairs.update({url: redact_url(url) for url in urls if redact_url(url) != url})
    return pairs


def _replace_all(text: str, pairs: list[tuple[str, str]]) -> str:
    for secret, replacement in pairs:
        text = text.replace(secret, replacement)
    return text


def _longest_first(pairs: dict[str, str]) -> list[tuple[str, str]]:
    # Longest first, so a secret that contains another is replaced whole.
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


class KnownSecrets:
    """Every secret any Scrubber knows, for logs and for what goes to the browser; shared by the threads."""

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
        """The configured secrets taken out of `text`."""
        return _replace_all(text, self._pairs)

    def log_line(self, text: str) -> str:
        """Also any URL's password: libraries log the URLs they request, configured or not."""
        text = self(text)
        return _URL_PASSWORD.sub(rf"\g<head>{REDACTED}@", text) if "://" in text else text


# Log files and the browser link are the process's, not any one object's: one set of secrets for the host.
KNOWN_SECRETS: Final = KnownSecrets()


class Scrubber:
    """Replaces known secret values (and secret-bearing URLs) in any text."""

    def __init__(self, secrets: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
        pairs = _pairs(secrets, urls)
        self._pairs = _longest_first(pairs)
        KNOWN_SECRETS.add(pairs)

    def __call__(self, text: str) -> str:
        return _replace_all(text, self._pairs)


def _base64(item: dict[str, Any], key: str) -> bool:
    # Image and audio data, blob resources: a secret's letters turn up in base64 by chance, and replacing
    # them would corrupt the payload; the text around them is still scrubbed.
    return (key == "data" and item.get("type") in ("image", "audio")) or (key == "blob" and "uri" in item)


def scrub_data(value: Any, scrub: Callable[[str], str]) -> Any:
    """A JSON value with the secrets taken out of every string in it, keys included (base64 payloads kept)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {
            scrub(str(key)): item if _base64(value, key) else scrub_data(item, scrub)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [scrub_data(item, scrub) for item in value]
    return value
