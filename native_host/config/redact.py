"""Keeping secrets out of output, logs and error messages.

A secret is found as written and in its common encodings, with whitespace and zero-width characters inside
ignored (`secret_forms`), and when split between neighbouring texts of a list (content blocks).
Every `Scrubber` also adds what it knows to `KNOWN_SECRETS`, the process's one set: the host's log formatter
applies it to every line it writes, and the dispatcher to every result it sends the browser (tool results and
resource contents included), so a configured secret that a server echoes never reaches the history or an
agent. One rule (`worth_hiding`) decides which values count, everywhere."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .secret_forms import SecretForms

REDACTED = "[redacted]"
_MIN_SECRET = 4  # shorter values would blank out ordinary words
# Values that configure rather than guard (DEBUG=true, PORT=8080): hiding them would blank out ordinary text.
_TRIVIAL: Final = re.compile(r"(?i)true|false|yes|no|on|off|null|none|[+-]?\d+(?:\.\d+)?")
# An `Authorization`-style value: its credential alone is a secret too (a server may echo just the token).
_AUTH_SCHEME: Final = re.compile(r"(?i)(?:bearer|basic|token|bot)\s+(?P<credential>\S+)")
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


def _hidden(values: Iterable[str]) -> set[str]:
    """The values worth hiding, and the credential of an `Authorization` value on its own as well."""
    hidden: set[str] = set()
    for value in values:
        credential = _AUTH_SCHEME.fullmatch(value.strip())
        hidden.update(v for v in (value, credential and credential["credential"]) if v and worth_hiding(v))
    return hidden


@dataclass(frozen=True, slots=True)
class _Redaction:
    """One set of secrets made ready: secret-bearing URLs replaced as written, then every form of a secret."""

    urls: tuple[tuple[str, str], ...]
    secrets: SecretForms

    @classmethod
    def of(cls, secrets: Iterable[str], urls: dict[str, str]) -> _Redaction:
        # Longest first, so a URL that contains another is replaced whole.
        return cls(tuple(sorted(urls.items(), key=lambda pair: -len(pair[0]))), SecretForms.of(secrets))

    @property
    def empty(self) -> bool:
        return not self.urls and not self.secrets.forms

    def blocks(self, texts: list[str]) -> list[str]:
        """`texts` (neighbours, read as one text) with every secret taken out, also one split between two."""
        for url, replacement in self.urls:
            texts = [text.replace(url, replacement) for text in texts]
        joined = "".join(texts)
        spans = self.secrets.spans(joined)
        if not spans:
            return texts
        out, start = [], 0
        for text in texts:
            end = start + len(text)
            cuts = [(max(a, start) - start, min(b, end) - start) for a, b in spans if a < end and b > start]
            out.append(_cut(text, cuts))
            start = end
        return out

    def __call__(self, text: str) -> str:
        return self.blocks([text])[0]


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    parts, done = [], 0
    for start, end in spans:
        parts += [text[done:start], REDACTED]
        done = end
    return "".join([*parts, text[done:]])


class Redacting:
    """Texts with the secrets of `_redaction` taken out."""

    _redaction: _Redaction

    @property
    def hides_nothing(self) -> bool:
        """No secret is known: scrubbing would only copy (the hot path skips it; docs/benchmarks.md)."""
        return self._redaction.empty

    def __call__(self, text: str) -> str:
        return self._redaction(text)

    def blocks(self, texts: list[str]) -> list[str]:
        """Neighbouring texts, read as one: a secret split between two is found too."""
        return self._redaction.blocks(texts)


class KnownSecrets(Redacting):
    """Every secret any Scrubber knows, for logs and for what goes to the browser; shared by the threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._urls: dict[str, str] = {}
        self._redaction = _Redaction.of((), {})

    def add(self, secrets: set[str], urls: dict[str, str]) -> None:
        with self._lock:
            if secrets <= self._secrets and urls.items() <= self._urls.items():
                return
            self._secrets |= secrets
            self._urls.update(urls)
            self._redaction = _Redaction.of(self._secrets, self._urls)

    def log_line(self, text: str) -> str:
        """Also any URL's password: libraries log the URLs they request, configured or not."""
        text = self(text)
        return _URL_PASSWORD.sub(rf"\g<head>{REDACTED}@", text) if "://" in text else text


# Log files and the browser link are the process's, not any one object's: one set of secrets for the host.
KNOWN_SECRETS: Final = KnownSecrets()


class Scrubber(Redacting):
    """Replaces known secret values, in any common form, and secret-bearing URLs in any text."""

    def __init__(self, secrets: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
        hidden = _hidden(secrets)
        redacted = {url: redact_url(url) for url in urls if redact_url(url) != url}
        self._redaction = _Redaction.of(hidden, redacted)
        KNOWN_SECRETS.add(hidden, redacted)


def _base64(item: dict[str, Any], key: str) -> bool:
    # Image and audio data, blob resources: a secret's letters turn up in base64 by chance, and replacing
    # them would corrupt the payload; the text around them is still scrubbed.
    return (key == "data" and item.get("type") in ("image", "audio")) or (key == "blob" and "uri" in item)


def _texts(items: list[Any]) -> list[tuple[int, int]]:
    """The runs of 2 or more neighbouring items with a `text` (content blocks, resource contents)."""
    runs, start = [], None
    for index, item in enumerate([*items, None]):
        has_text = isinstance(item, dict) and isinstance(item.get("text"), str)
        if has_text and start is None:
            start = index
        elif not has_text and start is not None:
            if index - start > 1:
                runs.append((start, index))
            start = None
    return runs


def _scrub_list(items: list[Any], scrub: Redacting) -> list[Any]:
    out = [_scrubbed(item, scrub) for item in items]
    # A secret split between neighbouring blocks is whole again when they are read one after the other.
    for start, end in _texts(items):
        texts = scrub.blocks([item["text"] for item in out[start:end]])
        out[start:end] = [{**item, "text": text} for item, text in zip(out[start:end], texts, strict=True)]
    return out


def scrub_data(value: Any, scrub: Redacting) -> Any:
    """A JSON value with the secrets taken out of every string in it, keys included (base64 payloads kept),
    and out of neighbouring texts of a list read together; `value` itself when `scrub` knows no secret."""
    return value if scrub.hides_nothing else _scrubbed(value, scrub)


def _scrubbed(value: Any, scrub: Redacting) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {
            scrub(str(key)): item if _base64(value, key) else _scrubbed(item, scrub)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return _scrub_list(value, scrub)
    return value
