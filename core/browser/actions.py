"""Every browser action, declared once: whether it reads or acts, whether it moves a tab, what it targets,
what the tab must show for it to run, and who runs it (Python through the debugger, or the service worker's
chrome.* executor). Consent (`describe`) and the browser handler (`action_of`) both read this table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from core.browser import devtools, dom, navigation, page, screenshot, waits
from core.browser.context import PageContext
from core.browser.tool_table import BROWSER_TOOLS
from core.calls.tab_scope import Access
from core.web.fence import PageText

type Result = str | dict[str, Any] | PageText
# A debugger-run action: Python builds its commands. It gets the tool's validated arguments model.
type Runner = Callable[[PageContext, Any], Awaitable[Result]]
type Target = Literal["tab", "url", "none"]


@dataclass(frozen=True, slots=True)
class ActionInfo:
    """What consent needs of an action (contract §8.1).

    `reads`: only reads and never changes the browser. `moves_tab`: changes what a tab shows, so consent asks
    for the destination (the `url` argument when given; back, forward and reload: the tab's own site).
    `target`: the call acts on a tab, opens a url (a new tab), or neither.
    """

    reads: bool
    moves_tab: bool
    target: Target


@dataclass(frozen=True, slots=True)
class BrowserAction:
    info: ActionInfo
    access: Access
    run: Runner | None  # None: the service worker's chrome.* executor, as one call
    # Its whole answer is text from the page (contract §7.1): the handler fences it. An action that mixes
    # its own words with the page's returns a `PageText` instead, and is fenced whatever this says.
    page_text: bool = False


def _reads(
    access: Access, run: Runner | None = None, *, target: Target = "tab", page_text: bool = False
) -> BrowserAction:
    return BrowserAction(ActionInfo(reads=True, moves_tab=False, target=target), access, run, page_text)


def _acts(
    access: Access,
    run: Runner | None = None,
    *,
    target: Target = "tab",
    moves_tab: bool = False,
    page_text: bool = False,
) -> BrowserAction:
    return BrowserAction(ActionInfo(reads=False, moves_tab=moves_tab, target=target), access, run, page_text)


ACTIONS: Mapping[str, Mapping[str, BrowserAction]] = {
    # Tabs' titles and URLs are the pages' text: those answers are fenced (page_text).
    "browser_tab": {
        "query": _reads("none", target="none", page_text=True),
        # create and update move a tab only when they name a url.
        "create": _acts("none", target="url", moves_tab=True, page_text=True),
        "update": _acts("tab", moves_tab=True, page_text=True),
        "activate": _acts("tab", page_text=True),
        "close": _acts("tab"),
    },
    "browser_navigation": {
        "navigate": _acts("navigate", navigation.navigate, moves_tab=True, page_text=True),
        "reload": _acts("tab", moves_tab=True, page_text=True),
        "back": _acts("tab", moves_tab=True, page_text=True),
        "forward": _acts("tab", moves_tab=True, page_text=True),
        "current_url": _reads("tab", page_text=True),
        "wait_for_load": _reads("tab", page_text=True),
    },
    "browser_page": {
        "title": _reads("page", page_text=True),
        "url": _reads("page", page_text=True),
        "text": _reads("page", page_text=True),
        "html": _reads("page", page_text=True),
        "links": _reads("page", page_text=True),
        "snapshot": _reads("page", page.snapshot),
        "find": _reads("page", page.find),
    },
    "browser_dom": {
        "click": _acts("page", dom.click),
        "hover": _acts("page", dom.hover),
        "type": _acts("page", dom.type_),
        "press": _acts("page", dom.press),
        "select": _acts("page", dom.select),
        "check": _acts("page", dom.check),
        "fill_form": _acts("page", dom.fill_form),
        "drag": _acts("page", dom.drag),
        "upload": _acts("page", dom.upload),
        "dialog": _acts("page", dom.dialog),
        "scroll": _acts("page", dom.scroll),
        "wait_for": _reads("page", waits.wait_for),
    },
    "browser_devtools": {
        "console": _reads("page", devtools.console),
        "network": _reads("page", devtools.network),
        "request": _reads("page", devtools.request),
    },
    "browser_screenshot": {"capture": _reads("page", screenshot.capture)},
    "browser_storage": {
        "get": _reads("none", target="none"),
        "keys": _reads("none", target="none"),
        "set": _acts("none", target="none"),
        "remove": _acts("none", target="none"),
    },
}


def _default_action(tool: str) -> str | None:
    spec = BROWSER_TOOLS.get(tool)
    default = spec.params.model_fields["action"].default if spec is not None else None
    return default if isinstance(default, str) else None


# A tool this table does not name (a test's stand-in) is one chrome.* call on no tab, asked as acting.
_UNDECLARED = _acts("none", target="none")


def action_of(tool: str, action: str | None) -> BrowserAction:
    """The declaration of a validated call's action (each tool's `action` Literal is this table's keys)."""
    actions = ACTIONS.get(tool)
    return actions[action] if actions is not None and action is not None else _UNDECLARED


def describe(tool: str, action: str | None) -> ActionInfo | None:
    """What `tool`'s `action` does (a tool with a default action, browser_screenshot, may omit it); None for
    a name that is no browser tool or an action it does not have."""
    actions = ACTIONS.get(tool)
    name = action if action is not None else _default_action(tool)
    if actions is None or name is None or name not in actions:
        return None
    return actions[name].info
