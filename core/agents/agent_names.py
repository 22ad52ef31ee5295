"""The name an agent gives itself, made safe to show next to its executable (contract §8.2).

The name is only a label the agent chose, so it must not be able to look like the executable the OS reported:
`codex — /opt/codex/bin/codex` must not put a trusted path before the real one. The name is cleaned, not
refused: an agent with an odd name still works, and the popup shows its executable first anyway.

- compatibility forms are folded first (a fullwidth ／ is a /);
- path separators (any slash or backslash look-alike) become spaces;
- a dash or hyphen of any kind is kept only between two letters or digits (`claude-code`), as an ASCII `-`;
  one used as a separator (`codex — …`, `- x`) becomes a space;
- control, format (bidi, zero-width), private-use and unassigned characters go; any space becomes one space;
- at most `MAX_NAME` characters (cut with …); nothing left is `unnamed`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

MAX_NAME: Final = 64
MAX_VERSION: Final = 32
UNNAMED: Final = "unnamed"

_SLASHES: Final = frozenset("/\\∕⁄⧸⧹⟋⟍﹨＼／")
_DASHES: Final = frozenset("−⁃˗﹘﹣－‐‑‒–—―⸺⸻-")
_GONE: Final = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})


def _kept(char: str) -> str:
    """One character of the name as shown: itself, a space, or nothing."""
    if char in _SLASHES:
        return " "
    category = unicodedata.category(char)
    if category in _GONE:
        return ""
    if category.startswith("Z"):
        return " "
    if char in _DASHES or category == "Pd":
        return "\0"  # decided below, once its neighbours are known
    return char


def _dashes(text: str) -> str:
    """A dash between two letters or digits is a hyphen; anywhere else it separates, and goes."""
    return re.sub(r"(?<=[^\W_])\0(?=[^\W_])", "-", text).replace("\0", " ")


def clean_label(text: str, limit: int, empty: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    shown = " ".join(_dashes("".join(_kept(char) for char in folded)).split())
    if len(shown) > limit:
        shown = shown[: limit - 1].rstrip() + "…"
    return shown or empty


def clean_name(name: str) -> str:
    return clean_label(name, MAX_NAME, UNNAMED)


def clean_version(version: str) -> str:
    return clean_label(version, MAX_VERSION, "")
