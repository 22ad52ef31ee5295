"""The page outline: Chrome's accessibility trees (one per frame) turned into one compact text outline.

One node a line, indented by depth: `role "name" states [ref=eN]: text`. Nodes that only structure the page
(generic containers, ignored nodes, label wrappers) give their children to their parent instead of a line of
their own, text a control already names is not repeated, and a lone text child joins its parent's line. Frames
appear under their iframe's line, in document order; shadow roots are already part of Chrome's tree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.browser.refs import NodeRef, RefTable

type AxNode = Mapping[str, Any]

# Roles whose nodes only group others: without a name (or focus) their children move up a level.
_STRUCTURE = frozenset(
    {"generic", "none", "presentation", "LabelText", "Section", "group", "div", "Pre", "rowgroup"}
)
# A table row is one line, its cells joined (contract §7.1).
_ROWS = frozenset({"row"})
_CELLS = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
_CELL_SEPARATOR = " | "
_DROPPED = frozenset({"InlineTextBox", "ListMarker", "LineBreak"})
_ROLE_NAMES = {"StaticText": "text", "Iframe": "iframe", "RootWebArea": "document", "image": "img"}
_NAME_LIMIT = 160
_VALUE_LIMIT = 160
_MISSING = {"type": "none"}


@dataclass(frozen=True, slots=True)
class FrameTree:
    """One frame's accessibility tree, as the executor fetched it."""

    frame_id: str
    parent_id: str | None
    session: str | None
    url: str
    owner: int | None  # backend id of the <iframe> element in the parent frame
    nodes: Sequence[AxNode]
    # The session the owner element belongs to (backend ids are per renderer process).
    owner_session: str | None = None
    # Why its content is not shown (a site the user did not grant, not a web page); None: shown.
    withheld: str | None = None


@dataclass(frozen=True, slots=True)
class Line:
    depth: int
    text: str


@dataclass(slots=True)
class Outline:
    lines: list[Line] = field(default_factory=list)

    def render(self, *, offset: int = 0, max_chars: int) -> str:
        """The lines from `offset` on, cut to `max_chars` with a last line that says how to read the rest."""
        shown, cut = self.parts(offset=offset, max_chars=max_chars)
        return "\n".join(part for part in (shown, cut) if part)

    def parts(self, *, offset: int = 0, max_chars: int) -> tuple[str, str]:
        """The lines from `offset` on that fit in `max_chars`, and the line that says how to read the rest
        ("" when nothing was cut): the page's text apart from Tabgate's own words."""
        out: list[str] = []
        used = 0
        total = len(self.lines)
        for index in range(offset, total):
            line = self.lines[index]
            text = "  " * line.depth + line.text
            # Keep room for the continuation line unless this is the last line.
            room = 0 if index + 1 == total else _CONTINUATION_ROOM
            if used + len(text) + 1 > max_chars - room:
                return "\n".join(out), _continuation(index, total)
            out.append(text)
            used += len(text) + 1
        return "\n".join(out), ""

    def find(self, pattern: re.Pattern[str]) -> list[str]:
        return [line.text for line in self.lines if pattern.search(line.text)]


_CONTINUATION_ROOM = 160


def _continuation(index: int, total: int) -> str:
    return (
        f"[cut: lines {index + 1}–{total} of {total} not shown. Read on with "
        f'browser_page {{"action": "snapshot", "offset": {index}}}, or read one part with {{"ref": ...}} '
        f"of a line above]"
    )


def _value(node: AxNode, key: str) -> Any:
    return (node.get(key) or _MISSING).get("value")


def _text(node: AxNode) -> str:
    return str(_value(node, "name") or "").strip()


def _properties(node: AxNode) -> dict[str, Any]:
    return {p["name"]: (p.get("value") or _MISSING).get("value") for p in node.get("properties", ())}


def _quote(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _states(role: str, node: AxNode, props: dict[str, Any]) -> list[str]:
    states: list[str] = []
    for name, on, off in (("checked", "checked", "unchecked"), ("pressed", "pressed", "not pressed")):
        value = props.get(name)
        if value in ("true", True):
            states.append(on)
        elif value in ("false", False):
            states.append(off)
        elif value == "mixed":
            states.append("mixed")
    if "expanded" in props:
        states.append("expanded" if props["expanded"] else "collapsed")
    for flag in ("selected", "disabled", "required", "readonly", "modal"):
        if props.get(flag) is True:
            states.append(flag)
    if props.get("focused") is True and role != "RootWebArea":
        states.append("focused")
    if props.get("invalid") not in (None, "false"):
        states.append("invalid")
    if role == "heading" and props.get("level") is not None:
        states.append(f"level={props['level']}")
    value = _value(node, "value")
    if value not in (None, "") and role not in ("StaticText", "RootWebArea"):
        states.append(f"value={_quote(str(value), _VALUE_LIMIT)}")
    return states


class _Builder:
    def __init__(self, frames: Sequence[FrameTree], refs: RefTable) -> None:
        self._refs = refs
        self._frames = {frame.frame_id: frame for frame in frames}
        self._nodes = {frame.frame_id: {node["nodeId"]: node for node in frame.nodes} for frame in frames}
        # The frame shown under each iframe element, by (owner's session, owner backend id).
        self._children = {
            (frame.owner_session, frame.owner): frame for frame in frames if frame.parent_id is not None
        }
        self.outline = Outline()

    def root(self, frame: FrameTree) -> AxNode | None:
        return next((node for node in frame.nodes if "parentId" not in node), None)

    def frame_body(self, frame: FrameTree, depth: int) -> None:
        root = self.root(frame)
        if root is not None:
            for child in self._kids(frame, root):
                self.node(frame, child, depth)

    def _kids(self, frame: FrameTree, node: AxNode) -> Iterator[AxNode]:
        nodes = self._nodes[frame.frame_id]
        for child_id in node.get("childIds", ()):
            child = nodes.get(child_id)
            if child is not None:
                yield child

    def _visible_kids(self, frame: FrameTree, node: AxNode) -> list[AxNode]:
        """The children that will show, with structure-only nodes replaced by their own children."""
        out: list[AxNode] = []
        for child in self._kids(frame, node):
            role = _value(child, "role")
            if role in _DROPPED:
                continue
            if self._hoisted(child, role):
                out.extend(self._visible_kids(frame, child))
            elif role == "StaticText" and not (_value(child, "name") or "").strip():
                continue
            else:
                out.append(child)
        # A label's text next to the control it names is said once, by the control.
        named = {_text(k) for k in out if _value(k, "role") != "StaticText"}
        return [k for k in out if not (_value(k, "role") == "StaticText" and _text(k) in named)]

    def _hoisted(self, node: AxNode, role: str | None) -> bool:
        if node.get("ignored"):
            return True
        if role not in _STRUCTURE:
            return False
        props = _properties(node)
        return not (_value(node, "name") or "").strip() and props.get("focusable") is not True

    def _ref(self, frame: FrameTree, node: AxNode) -> str | None:
        backend = node.get("backendDOMNodeId")
        if backend is None:
            return None
        return self._refs.ref_for(NodeRef(frame.session, int(backend), frame.frame_id))

    def node(self, frame: FrameTree, node: AxNode, depth: int) -> None:
        role = _value(node, "role") or "unknown"
        if role in _DROPPED:
            return
        if self._hoisted(node, role):
            for child in self._visible_kids(frame, node):
                self.node(frame, child, depth)
            return
        name = (_value(node, "name") or "").strip()
        if role == "StaticText":
            if name:
                self._line(depth, "text", None, [], self._ref(frame, node), name)
            return
        if role in _ROWS:
            self._row(frame, node, depth)
            return
        # Text that only repeats the node's own name (a button's label) or value (a text field's) goes.
        value = str(_value(node, "value") or "").strip()
        kids = [
            k
            for k in self._visible_kids(frame, node)
            if not (_value(k, "role") == "StaticText" and _text(k) in (name, value))
        ]
        inline = None
        if len(kids) == 1 and _value(kids[0], "role") == "StaticText" and not name:
            inline = (_value(kids[0], "name") or "").strip()
            kids = []
        states = _states(role, node, _properties(node))
        self._line(depth, _ROLE_NAMES.get(role, role), name or None, states, self._ref(frame, node), inline)
        if role in ("table", "grid", "treegrid"):  # a caption that only repeats the table's name goes
            kids = [k for k in kids if not (_value(k, "role") == "caption" and self._said(frame, k) == name)]
        for kid in kids:
            self.node(frame, kid, depth + 1)
        if role == "Iframe":
            self._frame_under(frame, node, depth + 1)

    def _said(self, frame: FrameTree, node: AxNode) -> str:
        """A node's name, or else the text it holds."""
        return _text(node) or " ".join(_text(k) for k in self._visible_kids(frame, node)).strip()

    def _row(self, frame: FrameTree, row: AxNode, depth: int) -> None:
        """`row: "0877" | "Ada" | button "Refund" [ref=e90]`; a row of column headers is `columns: …`. The
        row's own name (its cells' text again) is not said; a row or cell one can focus keeps its ref."""
        props = _properties(row)
        cells = self._visible_kids(frame, row)
        headers = bool(cells) and all(_value(c, "role") == "columnheader" for c in cells)
        parts = ["columns" if headers else "row", *_states("row", row, props)]
        if props.get("focusable") is True:
            parts.append(f"[ref={self._ref(frame, row)}]")
        shown = _CELL_SEPARATOR.join(self._cell(frame, cell) for cell in cells)
        self.outline.lines.append(Line(depth, " ".join(parts) + ": " + shown))

    def _cell(self, frame: FrameTree, cell: AxNode) -> str:
        """A cell of text is its text, quoted; a cell whose whole content is one element is that element only;
        anything else is its content, element by element."""
        role = _value(cell, "role")
        if role not in _CELLS:
            return " ".join(self._pieces(frame, cell))
        props = _properties(cell)
        kids = self._visible_kids(frame, cell)
        own = _states(role, cell, props)
        if props.get("focusable") is True:
            own.append(f"[ref={self._ref(frame, cell)}]")
        if all(_value(k, "role") == "StaticText" for k in kids):
            text = _text(cell) or " ".join(_text(k) for k in kids)
            return " ".join([_quote(text, _NAME_LIMIT), *own])
        pieces = [p for kid in kids for p in self._pieces(frame, kid)]
        return " ".join([*pieces, *own])

    def _pieces(self, frame: FrameTree, node: AxNode) -> list[str]:
        """A node and what it holds, as `node()` would show them, on one line (inside a table cell)."""
        role = _value(node, "role") or "unknown"
        if role in _DROPPED:
            return []
        if self._hoisted(node, role):
            return [p for kid in self._visible_kids(frame, node) for p in self._pieces(frame, kid)]
        name = _text(node)
        if role == "StaticText":
            return [_quote(name, _NAME_LIMIT)] if name else []
        value = str(_value(node, "value") or "").strip()
        kids = [
            k
            for k in self._visible_kids(frame, node)
            if not (_value(k, "role") == "StaticText" and _text(k) in (name, value))
        ]
        parts = [_ROLE_NAMES.get(role, role)]
        if name:
            parts.append(_quote(name, _NAME_LIMIT))
        parts.extend(_states(role, node, _properties(node)))
        ref = self._ref(frame, node)
        if ref is not None:
            parts.append(f"[ref={ref}]")
        return [" ".join(parts), *(p for kid in kids for p in self._pieces(frame, kid))]

    def _frame_under(self, parent: FrameTree, node: AxNode, depth: int) -> None:
        child = self._children.get((parent.session, node.get("backendDOMNodeId")))
        if child is None:
            return
        if child.withheld is not None:
            self.outline.lines.append(Line(depth, f"[not shown: {child.withheld}]"))
            return
        self.frame_body(child, depth)

    def _line(
        self, depth: int, role: str, name: str | None, states: list[str], ref: str | None, inline: str | None
    ) -> None:
        parts = [role]
        if name:
            parts.append(_quote(name, _NAME_LIMIT))
        parts.extend(states)
        if ref is not None:
            parts.append(f"[ref={ref}]")
        text = " ".join(parts)
        if inline:
            text += ": " + " ".join(inline.split())
        self.outline.lines.append(Line(depth, text))


def build_outline(frames: Sequence[FrameTree], refs: RefTable, *, under: NodeRef | None = None) -> Outline:
    """The outline of the top frame (the one without a parent) and, inside it, of every other frame.

    With `under`, only that node's subtree (the node's own line first).
    """
    builder = _Builder(frames, refs)
    if under is not None:
        frame = next((f for f in frames if f.frame_id == under.frame_id), None)
        node = (
            None
            if frame is None
            else next((n for n in frame.nodes if n.get("backendDOMNodeId") == under.backend_id), None)
        )
        if frame is None or node is None:
            raise LookupError("the node is no longer in the page")
        builder.node(frame, node, 0)
        if not builder.outline.lines:  # a structure-only node: show what it holds
            for child in builder._visible_kids(frame, node):
                builder.node(frame, child, 0)
        return builder.outline
    top = next((f for f in frames if f.parent_id is None), None)
    if top is not None:
        builder.frame_body(top, 0)
    return builder.outline
