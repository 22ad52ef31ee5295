"""The page outline: what the page-side walk found in each frame (`core/browser/walker.py`) turned into one
compact text outline.

One node a line, indented by depth: `role "name" states [ref=eN]: text`. Nodes that only structure the page
(unnamed groups, label wrappers) give their children to their parent instead of a line of their own, text a
control already names is not repeated, and a lone text child joins its parent's line. Frames appear under
their iframe's line, in document order; open shadow roots are already in the walk. A line keeps where its refs
go and which node each one names; the ref names (`e12`) are given when a line is shown (`RefTable`), so only
what an answer shows is ever resolved to the debugger's node ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.browser.refs import PageKey, RefTable

# Roles whose nodes only group others: without a name (or focus) their children move up a level.
_STRUCTURE = frozenset({"generic", "LabelText", "group", "Pre", "rowgroup"})
_ROWS = frozenset({"row"})
_CELLS = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
_TABLES = frozenset({"table", "grid", "treegrid"})
_CELL_SEPARATOR = " | "
_ROLE_NAMES = {"StaticText": "text", "Iframe": "iframe"}
_NAME_LIMIT = 160
_VALUE_LIMIT = 160


@dataclass(slots=True)
class Node:
    """One node the walk answered: its accessibility facts and the nodes under it."""

    key: PageKey
    role: str
    name: str
    value: str
    props: Mapping[str, Any]
    kids: list[Node] = field(default_factory=list)
    # The walk stopped inside this node (its budget ran out): what it holds may be only a part.
    open: bool = False


def parse(records: Sequence[Sequence[Any]], frame: tuple[str | None, str, str], *, cut: bool) -> list[Node]:
    """The walk's records (`[id, depth, role, name, value, props]`, document order) as trees; with `cut`, the
    nodes the walk was inside when it stopped are marked open."""
    session, frame_id, doc = frame
    roots: list[Node] = []
    chain: list[Node] = []
    for number, depth, role, name, value, props in records:
        key = PageKey(session, frame_id, doc, int(number))
        node = Node(key, str(role), str(name), str(value), props or {})
        del chain[int(depth) :]
        (chain[-1].kids if chain else roots).append(node)
        chain.append(node)
    if cut:
        for node in chain:
            node.open = True
    return roots


@dataclass(frozen=True, slots=True)
class FrameTree:
    """One frame's walk, as Python fetched it."""

    frame_id: str
    parent_id: str | None
    session: str | None
    url: str
    roots: Sequence[Node]
    # The <iframe> element that shows this frame, in its parent frame's walk.
    owner: PageKey | None = None
    # Why its content is not shown (a site the user did not grant, not a web page); None: shown.
    withheld: str | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """A line's text without its refs, and where each ref goes (`[ref=eN]` is inserted at that position)."""

    depth: int
    text: str
    marks: tuple[tuple[int, PageKey], ...] = ()

    def render(self, refs: RefTable) -> str:
        text = self.text
        named = [(position, refs.ref_for(key)) for position, key in self.marks]  # numbered left to right
        for position, ref_name in reversed(named):
            ref = f"[ref={ref_name}]"
            head, tail = text[:position], text[position:]
            text = f"{head} {ref}{tail}" if head else f"{ref}{tail}"
        return "  " * self.depth + text


@dataclass(slots=True)
class Outline:
    lines: list[Line] = field(default_factory=list)
    # False: the walk stopped at its budget and the page goes on after the last line.
    complete: bool = True

    def parts(self, refs: RefTable, *, offset: int = 0, max_chars: int) -> tuple[list[str], str]:
        """The lines from `offset` on that fit in `max_chars`, and the line that says how to read the rest
        ("" when nothing was cut): the page's text apart from Tabgate's own words."""
        out: list[str] = []
        used = 0
        total = len(self.lines)
        for index in range(offset, total):
            text = self.lines[index].render(refs)
            # Keep room for the continuation line unless this is the page's last line.
            room = 0 if index + 1 == total and self.complete else _CONTINUATION_ROOM
            if used + len(text) + 1 > max_chars - room:
                return out, self._continuation(index)
            out.append(text)
            used += len(text) + 1
        return out, "" if self.complete else self._continuation(total)

    def render(self, refs: RefTable, *, offset: int = 0, max_chars: int) -> str:
        shown, cut = self.parts(refs, offset=offset, max_chars=max_chars)
        return "\n".join([*shown, cut] if cut else shown)

    def covers(self, offset: int, max_chars: int) -> bool:
        """Whether reading on from `offset` can be answered from these lines: a whole outline can; one the
        walk cut short only while the lines after `offset` fill an answer of `max_chars`."""
        if self.complete:
            return offset <= len(self.lines)
        used = 0
        for line in self.lines[offset:]:
            used += 2 * line.depth + len(line.text) + _REF_ROOM * len(line.marks) + 1
            if used > max_chars:
                return True
        return False

    def find(self, pattern: re.Pattern[str]) -> list[Line]:
        return [Line(0, line.text, line.marks) for line in self.lines if pattern.search(line.text)]

    def _continuation(self, index: int) -> str:
        total = len(self.lines)
        which = f"lines {index + 1}–{total} of {total}" if self.complete else f"lines from {index + 1} on"
        return (
            f"[cut: {which} not shown. Read on with "
            f'browser_page {{"action": "snapshot", "offset": {index}}}, or read one part with {{"ref": ...}} '
            f"of a line above]"
        )


_CONTINUATION_ROOM = 160
_REF_ROOM = 12  # characters a line's " [ref=eNNNN]" takes


def _quote(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _states(node: Node) -> list[str]:
    props = node.props
    states: list[str] = []
    for name, on, off in (("checked", "checked", "unchecked"), ("pressed", "pressed", "not pressed")):
        value = props.get(name)
        if value is True:
            states.append(on)
        elif value is False:
            states.append(off)
        elif value == "mixed":
            states.append("mixed")
    if "expanded" in props:
        states.append("expanded" if props["expanded"] else "collapsed")
    for flag in ("selected", "disabled", "required", "readonly", "modal", "focused", "invalid"):
        if props.get(flag) is True:
            states.append(flag)
    if node.role == "heading" and props.get("level") is not None:
        states.append(f"level={props['level']}")
    if node.value and node.role != "StaticText":
        states.append(f"value={_quote(node.value, _VALUE_LIMIT)}")
    return states


def _is_text(node: Node) -> bool:
    return node.role == "StaticText"


class _Stop(Exception):
    """The walk stopped inside the node about to be shown: its line could be wrong, so the outline ends."""


class _Builder:
    def __init__(self, frames: Sequence[FrameTree]) -> None:
        # The frame shown under each iframe element.
        self._children = {frame.owner: frame for frame in frames if frame.owner is not None}
        self.outline = Outline()

    def frame_body(self, frame: FrameTree, depth: int) -> None:
        for node in self._visible(frame.roots):
            self.node(node, depth)

    def _visible(self, nodes: Sequence[Node]) -> list[Node]:
        """The nodes that will show, with structure-only nodes replaced by their own children."""
        out: list[Node] = []
        for node in nodes:
            if self._hoisted(node):
                out.extend(self._visible(node.kids))
            else:
                out.append(node)
        # A label's text next to the control it names is said once, by the control.
        named = {k.name for k in out if not _is_text(k)}
        return [k for k in out if not (_is_text(k) and k.name in named)]

    @staticmethod
    def _hoisted(node: Node) -> bool:
        return node.role in _STRUCTURE and not node.name and node.props.get("focusable") is not True

    def _own_kids(self, node: Node) -> list[Node]:
        # Text that only repeats the node's own name (a button's label) or value (a text field's) goes.
        said = (node.name, node.value)
        return [k for k in self._visible(node.kids) if not (_is_text(k) and k.name in said)]

    def node(self, node: Node, depth: int) -> None:
        if _is_text(node):
            self._add(Line(depth, "text: " + " ".join(node.name.split()), ((4, node.key),)))
            return
        if node.role in _ROWS:
            self._row(node, depth)
            return
        kids = self._own_kids(node)
        inline = None
        if len(kids) == 1 and _is_text(kids[0]) and not node.name:
            inline = kids[0].name
            kids = []
        if node.open and (inline is not None or not kids):
            raise _Stop
        parts = [_ROLE_NAMES.get(node.role, node.role)]
        if node.name:
            parts.append(_quote(node.name, _NAME_LIMIT))
        parts.extend(_states(node))
        text = " ".join(parts)
        marks = ((len(text), node.key),)
        if inline:
            text += ": " + " ".join(inline.split())
        self._add(Line(depth, text, marks))
        if node.role in _TABLES:  # a caption that only repeats the table's name goes
            kids = [k for k in kids if not (k.role == "caption" and self._said(k) == node.name)]
        for kid in kids:
            self.node(kid, depth + 1)
        if node.role == "Iframe":
            self._frame_under(node, depth + 1)

    def _add(self, line: Line) -> None:
        self.outline.lines.append(line)

    def _said(self, node: Node) -> str:
        """A node's name, or else the text it holds."""
        return node.name or " ".join(k.name for k in self._visible(node.kids)).strip()

    def _row(self, row: Node, depth: int) -> None:
        """`row: "0877" | "Ada" | button "Refund" [ref=e90]`; a row of column headers is `columns: …`. The
        row's own name (its cells' text again) is not said; a row or cell one can focus keeps its ref."""
        if row.open:
            raise _Stop
        cells = self._visible(row.kids)
        headers = bool(cells) and all(c.role == "columnheader" for c in cells)
        text = " ".join(["columns" if headers else "row", *_states(row)])
        marks: list[tuple[int, PageKey]] = []
        if row.props.get("focusable") is True:
            marks.append((len(text), row.key))
        text += ": "
        for index, cell in enumerate(cells):
            if index:
                text += _CELL_SEPARATOR
            text = self._cell(cell, text, marks)
        self._add(Line(depth, text, tuple(marks)))

    def _cell(self, cell: Node, text: str, marks: list[tuple[int, PageKey]]) -> str:
        """A cell of text is its text, quoted; a cell whose whole content is one element is that element only;
        anything else is its content, element by element."""
        if cell.role not in _CELLS:
            return self._pieces(cell, text, marks)
        kids = self._visible(cell.kids)
        if all(_is_text(k) for k in kids):
            said = cell.name or " ".join(k.name for k in kids)
            text += " ".join([_quote(said, _NAME_LIMIT), *_states(cell)])
        else:
            first = True
            for kid in kids:
                text = self._pieces(kid, text if first else text + " ", marks)
                first = False
            if _states(cell):
                text += " " + " ".join(_states(cell))
        if cell.props.get("focusable") is True:
            marks.append((len(text), cell.key))
        return text

    def _pieces(self, node: Node, text: str, marks: list[tuple[int, PageKey]]) -> str:
        """A node and what it holds, as `node()` would show them, on one line (inside a table cell)."""
        if self._hoisted(node):
            for index, kid in enumerate(self._visible(node.kids)):
                text = self._pieces(kid, text + (" " if index else ""), marks)
            return text
        if _is_text(node):
            return text + _quote(node.name, _NAME_LIMIT)
        parts = [_ROLE_NAMES.get(node.role, node.role)]
        if node.name:
            parts.append(_quote(node.name, _NAME_LIMIT))
        parts.extend(_states(node))
        text += " ".join(parts)
        marks.append((len(text), node.key))
        for kid in self._own_kids(node):
            text = self._pieces(kid, text + " ", marks)
        return text

    def _frame_under(self, iframe: Node, depth: int) -> None:
        child = self._children.get(iframe.key)
        if child is None:
            return
        if child.withheld is not None:
            self._add(Line(depth, f"[not shown: {child.withheld}]"))
            return
        self.frame_body(child, depth)


def _subtree(nodes: Sequence[Node], key: PageKey) -> Node | None:
    for node in nodes:
        if node.key == key:
            return node
        found = _subtree(node.kids, key)
        if found is not None:
            return found
    return None


def build_outline(frames: Sequence[FrameTree], *, under: PageKey | None = None) -> Outline:
    """The outline of the top frame (the one without a parent) and, inside it, of every other frame.

    With `under`, only that node's subtree (the node's own line first); LookupError when it is not there.
    """
    builder = _Builder(frames)
    outline = builder.outline
    try:
        if under is not None:
            frame = next((f for f in frames if f.frame_id == under.frame_id), None)
            node = None if frame is None else _subtree(frame.roots, under)
            if node is None:
                raise LookupError("the node is no longer in the page")
            if builder._hoisted(node):  # a structure-only node: show what it holds
                for kid in builder._visible(node.kids):
                    builder.node(kid, 0)
            else:
                builder.node(node, 0)
        else:
            top = next((f for f in frames if f.parent_id is None), None)
            if top is not None:
                builder.frame_body(top, 0)
    except _Stop:
        outline.complete = False
    if any(_open(frame.roots) for frame in frames):
        outline.complete = False
    return outline


def _open(nodes: Sequence[Node]) -> bool:
    return bool(nodes) and nodes[-1].open


def walk_keys(frames: Sequence[FrameTree], role: str) -> Iterator[PageKey]:
    """The keys of every node with `role` (the iframes, whose frames Python then finds)."""

    def visit(nodes: Sequence[Node]) -> Iterator[PageKey]:
        for node in nodes:
            if node.role == role:
                yield node.key
            yield from visit(node.kids)

    for frame in frames:
        yield from visit(frame.roots)
