"""Where a configured secret shows in a text, in any common form (contract §8.2): as written, base64 (standard
and URL-safe, padded or not, and at each of the 3 byte alignments inside a longer base64 text), hex (lower and
upper case) and URL-encoded; with whitespace and zero-width or other format characters (Cf) inside it ignored.

Cost: a text is first stripped of ignorable characters (as bytes when it is ASCII, by a regex otherwise) and
each form looked up with `in`; only a form found there is matched again, tolerantly, to find its place in the
original. Secrets shorter than
`MIN_ENCODED` characters are matched as written only: their encodings are a few characters long and would
blank out ordinary words."""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote, quote_plus

MIN_ENCODED: Final = 8
# Whitespace, and the format characters (Unicode category Cf, as of Python 3.13's Unicode 15.1: soft hyphen,
# zero-width space and joiners, bidi controls, word joiner, BOM, tags...).
IGNORED_CLASS: Final = (
    r"\s\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_IGNORED: Final = re.compile(f"[{IGNORED_CLASS}]+")
_ASCII_SPACE: Final = bytes(code for code in range(128) if chr(code).isspace())
_PERCENT: Final = re.compile(r"%[0-9A-F]{2}")


def _base64_forms(raw: bytes) -> set[str]:
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode()
        forms |= {whole, whole.rstrip("=")}
        for offset in (0, 1, 2):
            # Inside a longer base64 text the secret's bytes start at one of 3 places in a 3-byte group: the
            # characters made of its bits only are the same whatever surrounds it.
            shifted = encode(bytes(offset) + raw).decode()
            forms.add(shifted[-(-8 * offset // 6) : 8 * (offset + len(raw)) // 6])
    return forms


def _url_forms(secret: str) -> set[str]:
    encoded = {quote(secret, safe=""), quote_plus(secret, safe="")}
    return encoded | {_PERCENT.sub(lambda m: m.group().lower(), form) for form in encoded}


def forms(secret: str) -> set[str]:
    """The forms of `secret` to look for, with ignorable characters taken out (as texts are before lookup)."""
    found = {secret}
    if len(secret) >= MIN_ENCODED:
        raw = secret.encode()
        found |= _base64_forms(raw) | {raw.hex(), raw.hex().upper()} | _url_forms(secret)
    return {stripped for form in found if (stripped := _IGNORED.sub("", form))}


@functools.lru_cache(maxsize=256)
def _tolerant(form: str) -> re.Pattern[str]:
    # Each gap is followed by a character that is not ignorable, so the match cannot backtrack.
    return re.compile(f"[{IGNORED_CLASS}]*".join(re.escape(char) for char in form))


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True, slots=True)
class SecretForms:
    """Every form of a set of secrets; `spans` says where they are in a text."""

    forms: tuple[tuple[str, bytes], ...]  # each form, and its bytes for ASCII texts

    @classmethod
    def of(cls, secrets: Iterable[str]) -> SecretForms:
        found = {form for secret in secrets for form in forms(secret)}
        return cls(tuple((form, form.encode()) for form in sorted(found)))

    def _present(self, text: str) -> list[str]:
        if text.isascii():  # the common case, in bytes: stripping and looking up run at C speed
            stripped = text.encode("ascii").translate(None, _ASCII_SPACE)
            return [form for form, raw in self.forms if raw in stripped]
        unicode = _IGNORED.sub("", text)
        return [form for form, _ in self.forms if form in unicode]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where any form is in `text` (ignorable characters inside included), sorted, not overlapping."""
        present = self._present(text) if self.forms else []
        return _merged(m.span() for form in present for m in _tolerant(form).finditer(text))
