"""A domain's ASCII spelling (`bücher.example` → `xn--bcher-kva.example`), for the labels whose UTS-46
reading is certain; every other label is refused with why.

Chrome turns a non-ASCII host into punycode by UTS-46 (non-transitional). Python's `encodings.idna` is
IDNA2003, which reads some labels differently, and the full UTS-46 mapping table is large. A label is
therefore taken only when UTS-46 leaves each of its characters as it is (lowercase letters, marks and digits
that no normalisation or case folding changes, outside the few the standard treats specially), so its ASCII
form is its punycode alone. Look-alikes that UTS-46 would map to other letters (fullwidth `ｅ`, `ℯ`,
ligatures), invisible characters it would drop, and right-to-left labels (whose bidi rule is not checked here)
are refused rather than guessed. Checked against Unicode's IdnaTestV2 (every label taken agrees with it).
"""

from __future__ import annotations

import unicodedata

# Full stops UTS-46 maps to "." (ideographic and fullwidth): a host that uses them has those label breaks.
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_LETTERS_MARKS_DIGITS = frozenset({"Ll", "Lo", "Lm", "Mn", "Mc", "Nd"})
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})
# Characters of those classes that UTS-46 does not keep as they are, or treats by context: deviation letters
# (ß, ς), IDNA2008 exceptions, contextual digits, Hangul fillers and old conjoining jamo, and the marks UTS-46
# ignores (grapheme joiner, variation selectors, Mongolian selectors, Khmer inherent vowels).
_SPECIAL = frozenset(
    {0x00DF, 0x03C2, 0x0640, 0x07FA, 0x302E, 0x302F, 0x303B, 0x034F, 0x17B4, 0x17B5}
    | set(range(0x3031, 0x3036))
    | set(range(0x06F0, 0x06FA))
    | set(range(0x1100, 0x1200))
    | set(range(0xA960, 0xA980))
    | set(range(0xD7B0, 0xD800))
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)


class HostRefused(ValueError):
    """A host whose reading by Chrome is not certain; what it must be ("must …"), for the agent."""


def _kept_as_is(char: str) -> bool:
    """Whether UTS-46 keeps `char` unchanged and valid in a label (see the module's note)."""
    return (
        unicodedata.category(char) in _LETTERS_MARKS_DIGITS
        and ord(char) not in _SPECIAL
        and unicodedata.bidirectional(char) not in _RIGHT_TO_LEFT
        and unicodedata.normalize("NFKC", char) == char
        and char.casefold() == char
        and char.lower() == char
    )


def _unicode_label(label: str) -> str:
    """`label`'s punycode form (`xn--…`), or HostRefused saying which character is not certain."""
    lowered = "".join(c.lower() if "A" <= c <= "Z" else c for c in label)
    composed = unicodedata.normalize("NFC", lowered)
    if composed.startswith("xn--"):
        raise HostRefused(f"must not have {label!r} in its host: it starts with xn-- but is not punycode")
    for char in composed:
        if not char.isascii() and not _kept_as_is(char):
            name = unicodedata.name(char, "unnamed")
            raise HostRefused(
                f"must not have U+{ord(char):04X} {name} in its host: Chrome would map, drop or check it by "
                "rules Tabgate does not apply; write the host in ASCII or punycode (xn--)"
            )
    if unicodedata.category(composed[0]) in ("Mn", "Mc"):
        raise HostRefused("must not start a label of its host with a combining mark")
    return "xn--" + composed.encode("punycode").decode("ascii")


def _punycode_label(label: str) -> str:
    """An `xn--` label in ASCII: taken when it decodes to a label that `_unicode_label` spells the same."""
    try:
        decoded = label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, OverflowError):  # the codec overflows on digits too large for a code point
        raise HostRefused(f"must not have {label!r} in its host: it is not valid punycode") from None
    if decoded.isascii():
        raise HostRefused(f"must not have {label!r} in its host: punycode that stands for no non-ASCII label")
    try:
        same = _unicode_label(decoded) == label
    except HostRefused:
        same = False
    if not same:
        raise HostRefused(
            f"must not have {label!r} in its host: punycode for a label Chrome could read otherwise"
        )
    return label


def domain_to_ascii(domain: str) -> str:
    """The ASCII form of a domain as the WHATWG URL standard makes it, where certain; HostRefused else."""
    labels = domain.split(".")
    if domain.isascii() and not any(label.lower().startswith("xn--") for label in labels):
        return domain.lower()
    out: list[str] = []
    for label in domain.translate(_DOTS).split("."):
        if not label.isascii():
            out.append(_unicode_label(label))
        elif label.lower().startswith("xn--"):
            out.append(_punycode_label(label.lower()))
        else:
            out.append(label.lower())
    return ".".join(out)
