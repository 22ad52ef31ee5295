"""Refs: the short names (`e12`) a snapshot gives page nodes, and what each one points at.

The page-side walk numbers the nodes it answers (`PageKey`); a ref names one such node. When a line is shown
its refs are named, and Python then asks the debugger which node each new one is (`NodeRef`, its backend id),
so acting on a ref works as on any node the debugger names. A tab's refs belong to one top-level document (the
executor's `epoch` counts them); within it a node keeps its ref across snapshots, and a navigation makes every
old ref stale. A ref in a child frame (or naming the <iframe> that shows one) knows that frame's site: acting
there is consented for it, not for the top page's (contract §8.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.browser.executor import TabState
from core.calls.errors import RespondToModel


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A DOM node as the debugger addresses it: its backend id, in the session of its frame's process."""

    session: str | None  # None: the tab's own session
    backend_id: int
    frame_id: str


@dataclass(frozen=True, slots=True)
class PageKey:
    """A node as the page-side walk numbered it: in one frame's document (`doc`, new for each document)."""

    session: str | None
    frame_id: str
    doc: str
    id: int


@dataclass(frozen=True, slots=True)
class FrameSite:
    """The site a child frame's document comes from, and the frame the executor re-checks it on right before
    acting: the frame itself, or the nearest ancestor whose site an about:blank or srcdoc frame inherits."""

    site: str | None  # None: no web page (a frame of another scheme)
    session: str | None
    frame_id: str

    def to_wire(self) -> dict[str, str | None]:
        return {"session": self.session, "frameId": self.frame_id, "site": self.site}


@dataclass(frozen=True, slots=True)
class LoneFrame:
    """A document last walked as one frame (no child frame): while the executor has seen no frame change since
    `frames`, its next walk is the walk alone, in the same isolated world (core/browser/page_walk.py)."""

    frames: int
    frame_id: str
    url: str
    context: int


class StaleRef(RespondToModel):
    """A ref that no longer names an element: callers that wait for an element tell it apart by type."""


def stale_ref(ref: str, why: str) -> StaleRef:
    return StaleRef(
        f"ref {ref} is stale ({why}). "
        "Take a new snapshot (browser_page {action: 'snapshot'}) and use its refs."
    )


@dataclass(slots=True)
class RefTable:
    epoch: int
    _by_ref: dict[str, PageKey] = field(default_factory=dict)
    _by_key: dict[PageKey, str] = field(default_factory=dict)
    _nodes: dict[str, NodeRef | None] = field(default_factory=dict)  # None: the node was gone when asked
    # The last outline of this document (core/browser/page.py reads on from it and finds in it).
    outline: Any = None
    # The lines each caller was last shown, for `snapshot {since: "last"}`.
    seen: dict[str, list[str]] = field(default_factory=dict)
    # Each frame's isolated world (session, frame id → execution context), where its refs are looked up.
    contexts: dict[tuple[str | None, str], int] = field(default_factory=dict)
    # Each child frame's site, and the child frame each <iframe> node shows, as the walks last saw them.
    frames: dict[tuple[str | None, str], FrameSite] = field(default_factory=dict)
    shows: dict[PageKey, FrameSite] = field(default_factory=dict)
    # The document as one frame, when the last walk found it so.
    lone_frame: LoneFrame | None = None

    def ref_for(self, key: PageKey) -> str:
        ref = self._by_key.get(key)
        if ref is None:
            ref = f"e{len(self._by_ref) + 1}"
            self._by_ref[ref] = key
            self._by_key[key] = ref
        return ref

    def unresolved(self) -> list[PageKey]:
        """The nodes named but not yet looked up in the debugger."""
        return [key for ref, key in self._by_ref.items() if ref not in self._nodes]

    def resolved(self, key: PageKey, node: NodeRef | None) -> None:
        self._nodes[self._by_key[key]] = node

    def key(self, ref: str, epoch: int) -> PageKey:
        if epoch != self.epoch:
            raise stale_ref(ref, "the page has navigated since that snapshot")
        key = self._by_ref.get(ref)
        if key is None:
            raise stale_ref(ref, "no snapshot of this page gave it")
        return key

    def saw_frames(
        self, frames: dict[tuple[str | None, str], FrameSite], shows: dict[PageKey, FrameSite]
    ) -> None:
        """What a walk found of the child frames (kept with what earlier walks of this document found)."""
        self.frames.update(frames)
        self.shows.update(shows)

    def frame_of(self, ref: str) -> FrameSite | None:
        """The child frame acting on `ref` lands in; None for the top document (or a ref it never gave)."""
        key = self._by_ref.get(ref)
        if key is None:
            return None
        return self.shows.get(key) or self.frames.get((key.session, key.frame_id))

    def node(self, ref: str, epoch: int) -> NodeRef:
        self.key(ref, epoch)
        node = self._nodes.get(ref)
        if node is None:
            raise stale_ref(ref, "that element is no longer in the page")
        return node


MAX_TABS = 64  # tables kept; the tab used longest ago is forgotten first


class TabRefs:
    """The ref table of every tab Tabgate has taken a snapshot of."""

    def __init__(self) -> None:
        self._tables: dict[int, RefTable] = {}

    def table(self, tab_id: int, epoch: int) -> RefTable:
        """The table for the tab's current document; a new document starts an empty one."""
        table = self._tables.pop(tab_id, None)
        if table is None or table.epoch != epoch:
            table = RefTable(epoch)
        self._tables[tab_id] = table
        while len(self._tables) > MAX_TABS:
            del self._tables[next(iter(self._tables))]
        return table

    def saw(self, state: TabState) -> None:
        """What an answer showed of a tab: the last walk's lone frame no longer holds once the tab shows
        another document or its frames changed (the next walk then starts from the frame tree, without first
        trying the walk alone)."""
        table = self._tables.get(state.tab_id)
        lone = table.lone_frame if table is not None else None
        if (
            table is not None
            and lone is not None
            and (table.epoch, lone.frames) != (state.epoch, state.frames)
        ):
            table.lone_frame = None

    def table_of(self, tab_id: int) -> RefTable | None:
        """The tab's table as it is (its document may have changed since: the caller checks)."""
        return self._tables.get(tab_id)

    def frame_of(self, tab_id: int, ref: str) -> FrameSite | None:
        """The child frame a ref of the tab's last snapshot lands in (None: the top document, or no such ref:
        acting on it then fails as stale)."""
        table = self._tables.get(tab_id)
        return None if table is None else table.frame_of(ref)

    def peek(self, tab_id: int, ref: str) -> tuple[NodeRef, int]:
        """The node and the epoch of the document it was seen in, to be checked against the tab later."""
        table = self._tables.get(tab_id)
        if table is None:
            raise stale_ref(ref, "no snapshot of this tab was taken")
        return table.node(ref, table.epoch), table.epoch

    def node(self, tab_id: int, ref: str, epoch: int) -> NodeRef:
        table = self._tables.get(tab_id)
        if table is None:
            raise stale_ref(ref, "no snapshot of this tab was taken")
        return table.node(ref, epoch)
