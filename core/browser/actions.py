"""STUB (helper "consent", issue 17): interface D's signature until helper "actions" lands its declaration.

Delete this file at merge and take helper "actions"' `core/browser/actions.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class ActionInfo:
    reads: bool
    moves_tab: bool
    target: Literal["tab", "url", "none"]


_READ_TAB = ActionInfo(reads=True, moves_tab=False, target="tab")
_ACT_TAB = ActionInfo(reads=False, moves_tab=False, target="tab")
_MOVE_TAB = ActionInfo(reads=False, moves_tab=True, target="tab")
_MOVE_URL = ActionInfo(reads=False, moves_tab=True, target="url")

_TABLE: dict[tuple[str, str | None], ActionInfo] = {
    ("browser_tab", "query"): ActionInfo(reads=True, moves_tab=False, target="none"),
    ("browser_tab", "create"): _MOVE_URL,
    ("browser_tab", "close"): _ACT_TAB,
    ("browser_tab", "activate"): _ACT_TAB,
    ("browser_tab", "update"): _MOVE_TAB,
    ("browser_navigation", "navigate"): _MOVE_URL,
    ("browser_navigation", "reload"): _MOVE_TAB,
    ("browser_navigation", "back"): _MOVE_TAB,
    ("browser_navigation", "forward"): _MOVE_TAB,
    ("browser_navigation", "current_url"): _READ_TAB,
    ("browser_navigation", "wait_for_load"): _READ_TAB,
    ("browser_screenshot", "capture"): _READ_TAB,
    ("browser_storage", "get"): ActionInfo(reads=True, moves_tab=False, target="none"),
    ("browser_storage", "keys"): ActionInfo(reads=True, moves_tab=False, target="none"),
    ("browser_storage", "set"): ActionInfo(reads=False, moves_tab=False, target="none"),
    ("browser_storage", "remove"): ActionInfo(reads=False, moves_tab=False, target="none"),
}
_READING_TOOLS = {"browser_page", "browser_devtools"}
_ACTING_TOOLS = {"browser_dom"}


def describe(tool: str, action: str | None) -> ActionInfo | None:
    if tool in _READING_TOOLS:
        return _READ_TAB
    if tool in _ACTING_TOOLS:
        return _ACT_TAB
    return _TABLE.get((tool, action))
