"""Text folded the way a reader sees it, so a look-alike of Tabgate's fence markers is recognised as one
(contract §8.2): compatibility forms (fullwidth letters and digits) by NFKC, any decimal digit as its ASCII
digit, Cyrillic and Greek letters that look like the markers' Latin ones by a small skeleton table, every
dash or hyphen (and the minus sign) as `-`, and zero-width and other format characters (Cf) dropped.

Folding is for finding markers only: `Folded.span` maps a match back to the original text, which is what
gets shown, untouched outside the match."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

# Look-alikes of the letters the markers use ("page content", "end of", hex digits) and a few neighbours,
# after NFKC; mapped to lowercase ASCII. Uppercase forms too: their lowercase is often another letter
# (Greek Ν lowercases to ν, which looks like v).
_SKELETON: Final = {
    **dict.fromkeys("аАαΑɑ", "a"),
    **dict.fromkeys("ЬВΒβь", "b"),
    **dict.fromkeys("сСϲϹ", "c"),
    **dict.fromkeys("ԁ", "d"),
    **dict.fromkeys("еЕЁёΕ", "e"),
    **dict.fromkeys("ϝϜ", "f"),
    **dict.fromkeys("ɡԍ", "g"),
    **dict.fromkeys("ΗН", "h"),
    **dict.fromkeys("іІΙι", "i"),
    **dict.fromkeys("ΝпՈ", "n"),
    **dict.fromkeys("оОοΟσ", "o"),
    **dict.fromkeys("рРρΡ", "p"),
    **dict.fromkeys("тТτΤ", "t"),
    **dict.fromkeys("хХχΧ", "x"),
}
_MINUS: Final = "\u2212"
_CACHE_LIMIT: Final = 4096  # distinct characters remembered; a page of many scripts cannot grow it forever


def fold_char(char: str) -> str:
    """What `char` reads as: possibly several characters (a ligature), or none (a format character)."""
    if char.isascii():
        return char.lower()
    category = unicodedata.category(char)
    if category == "Cf":
        return ""
    if category == "Pd" or char == _MINUS:
        return "-"
    if category == "Nd":
        return str(unicodedata.decimal(char))
    return "".join(_SKELETON.get(c, c.lower()) for c in unicodedata.normalize("NFKC", char))


class _Table(dict[int, str]):
    """`str.translate`'s table, filled as characters are met (the common ones cost a dict lookup in C)."""

    def __missing__(self, code: int) -> str:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        folded = self[code] = fold_char(chr(code))
        return folded


_TABLE: Final = _Table()


def fold(text: str) -> str:
    """`text` as a reader sees it (ASCII text only lowercased)."""
    return text.lower() if text.isascii() else text.translate(_TABLE)


@dataclass(frozen=True, slots=True)
class Folded:
    """`text` folded, with where each folded character came from."""

    text: str
    origin: tuple[int, ...]  # origin[i]: the index in the original of folded character i

    @classmethod
    def of(cls, original: str) -> Folded:
        origin: list[int] = []
        for index, char in enumerate(original):
            origin.extend([index] * len(_TABLE[ord(char)]))
        return cls(fold(original), tuple(origin))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters folded characters `start:end` (end > start) came from."""
        return self.origin[start], self.origin[end - 1] + 1
