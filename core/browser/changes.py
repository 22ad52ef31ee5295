"""`snapshot {since: "last"}`: the lines of a new outline that were added, changed or removed since the lines
a caller was last shown of that document."""

from __future__ import annotations

from difflib import SequenceMatcher


def changes(before: list[str], after: list[str]) -> tuple[str, list[str]]:
    """A header that counts the changes, and the changed lines: `+ ` added, `~ ` changed (its new text),
    `- ` removed (in the order of the page)."""
    added = changed = removed = 0
    out: list[str] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        out += [f"~ {line}" for line in after[j1 : j1 + pairs]]
        out += [f"- {line}" for line in before[i1 + pairs : i2]]
        out += [f"+ {line}" for line in after[j1 + pairs : j2]]
        changed += pairs
        removed += i2 - i1 - pairs
        added += j2 - j1 - pairs
    if not out:
        return "Nothing changed since your last snapshot of this page.", []
    header = (
        f"Changes since your last snapshot of this page: {added} added, {changed} changed, {removed} removed "
        "(+ added, ~ changed, - removed; refs stay valid):"
    )
    return header, out
