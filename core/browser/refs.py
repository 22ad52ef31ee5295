"""Refs: the short names (`e12`) a snapshot gives page nodes, and what each one points at.

A tab's refs belong to one top-level document (the executor's `epoch` counts them). Within it a node keeps
its ref across snapshots, so refs from an earlier snapshot of the same page stay usable; a navigation makes
every old ref stale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.errors import RespondToModel


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A DOM node as the debugger addresses it: its backend id, in the session of its frame's process."""

    session: str | None  # None: the tab's own session
    backend_id: int
    frame_id: str


def stale_ref(ref: str, why: str) -> RespondToModel:
    return RespondToModel(
        f"ref {ref} is stale ({why}). "
        "Take a new snapshot (browser_page {action: 'snapshot'}) and use its refs."
    )


@dataclass(slots=True)
class RefTable:
    epoch: int
    _by_ref: dict[str, NodeRef] = field(default_factory=dict)
    _by_node: dict[NodeRef, str] = field(default_factory=dict)
    # The last whole-page outline: reading on after a cut (offset) reads the same outline, line for line.
    outline: Any = None

    def ref_for(self, node: NodeRef) -> str:
        ref = self._by_node.get(node)
        if ref is None:
            ref = f"e{len(self._by_ref) + 1}"
            self._by_ref[ref] = node
            self._by_node[node] = ref
        return ref

    def node(self, ref: str, epoch: int) -> NodeRef:
        if epoch != self.epoch:
            raise stale_ref(ref, "the page has navigated since that snapshot")
        node = self._by_ref.get(ref)
        if node is None:
            raise stale_ref(ref, "no snapshot of this page gave it")
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
