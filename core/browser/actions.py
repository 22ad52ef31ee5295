"""Every browser action, declared once (contract §7): whether it reads or acts, whether it moves a tab, what
it targets, what the tab must show for it to run, whether an open JavaScript dialog blocks it, its plain
words, and who runs it (Python through the debugger, or the service worker's chrome.* executor). Consent
(`describe`), the person's view (`words`), the parallel gate (`parallel`) and the wrapper that runs every
action (core/tools/handlers/browser.py) all read this table; each tool's arguments model names the fields.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal

from core.browser import action_words as say
from core.browser import devtools, dom, navigation, page, screenshot, waits
from core.browser.action_words import Words
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
    words: Words  # what the call does, for the person
    run: Runner | None  # None: the service worker's chrome.* executor, as one call
    # Its whole answer is text from the page (contract §7.1): the handler fences it. An action that mixes
    # its own words with the page's returns a `PageText` instead, and is fenced whatever this says.
    page_text: bool = False
    # While a JavaScript dialog is open in its tab it does not run (it would wait on the dialog): the answer
    # says the dialog and how to answer it.
    blocked_by_dialog: bool = False
    # Caps the chrome.* executor applies as given (decided here, not in the worker).
    limits: tuple[tuple[str, int], ...] = ()

    @property
    def parallel(self) -> bool:
        """Runs beside the other calls of its turn that read; one that acts runs alone."""
        return self.info.reads


def _action(
    access: Access,
    words: Words,
    run: Runner | None = None,
    *,
    reads: bool,
    target: Target = "tab",
    moves_tab: bool = False,
    page_text: bool = False,
    blocked_by_dialog: bool = False,
) -> BrowserAction:
    info = ActionInfo(reads=reads, moves_tab=moves_tab, target=target)
    return BrowserAction(info, access, words, run, page_text, blocked_by_dialog)


_reads = partial(_action, reads=True)
_acts = partial(_action, reads=False)


# At most this many links in one `links` answer (the page's first ones).
MAX_LINKS = 1000


def _page_read(what: str) -> BrowserAction:
    """title, url, text, html, links: one script in the page (chrome.scripting), which a dialog holds up."""
    read = _reads("page", say.fixed(f"read the page's {what}"), page_text=True, blocked_by_dialog=True)
    return replace(read, limits=(("maxLinks", MAX_LINKS),)) if what == "links" else read


def _moves(words: Words) -> BrowserAction:
    """reload, back, forward: one chrome.* call that moves the tab, timed as navigation.py says."""
    return replace(_acts("tab", words, moves_tab=True, page_text=True), limits=navigation.TIMING)


def _on_page(reads: bool, words: Words, run: Runner) -> BrowserAction:
    """A debugger-run action in a page: a dialog holds up its commands."""
    return _action("page", words, run, reads=reads, blocked_by_dialog=True)


ACTIONS: Mapping[str, Mapping[str, BrowserAction]] = {
    # Tabs' titles and URLs are the pages' text: those answers are fenced (page_text).
    "browser_tab": {
        "query": _reads("none", say.fixed("list its tabs"), target="none", page_text=True),
        # create and update move a tab only when they name a url.
        "create": _acts(
            "none",
            lambda a: f"open a new tab at {say.quoted(a['url'])}" if "url" in a else "open a new tab",
            target="url",
            moves_tab=True,
            page_text=True,
        ),
        "update": _acts(
            "tab",
            lambda a: f"load {say.quoted(a['url'])} in the tab" if "url" in a else "change the tab",
            moves_tab=True,
            page_text=True,
        ),
        "activate": _acts("tab", say.fixed("bring the tab to the front"), page_text=True),
        "close": _acts("tab", say.fixed("close the tab")),
    },
    "browser_navigation": {
        "navigate": _acts(
            "navigate",
            lambda a: f"go to {say.quoted(a.get('url', ''))}",
            navigation.navigate,
            moves_tab=True,
            page_text=True,
            blocked_by_dialog=True,
        ),
        "reload": _moves(say.fixed("reload the page")),
        "back": _moves(say.fixed("go back a page")),
        "forward": _moves(say.fixed("go forward a page")),
        "current_url": _reads("tab", say.fixed("read the page's address"), page_text=True),
        "wait_for_load": replace(
            _reads("tab", say.fixed("wait for the page to load"), page_text=True), limits=navigation.TIMING
        ),
    },
    "browser_page": {
        **{what: _page_read(what) for what in ("title", "url", "text", "html", "links")},
        "snapshot": _on_page(True, say.fixed("read the page's outline"), page.snapshot),
        "find": _on_page(
            True, lambda a: f"find {say.quoted(a.get('text', a.get('regex', '')))} on the page", page.find
        ),
    },
    "browser_dom": {
        "click": _on_page(False, say.click, dom.click),
        "hover": _on_page(False, lambda a: f"move the mouse over {say.element(a)}", dom.hover),
        "type": _on_page(False, say.type_, dom.type_),
        "press": _on_page(False, lambda a: f"press {say.quoted(a.get('key', ''))}{say.on(a)}", dom.press),
        "select": _on_page(
            False, lambda a: f"choose {say.listed(a.get('values', []))} in {say.element(a)}", dom.select
        ),
        "check": _on_page(
            False,
            lambda a: f"{'uncheck' if a.get('checked') is False else 'check'} {say.element(a)}",
            dom.check,
        ),
        "fill_form": _on_page(False, say.fill_form, dom.fill_form),
        "drag": _on_page(
            False, lambda a: f"drag {say.element(a)} onto {say.element(a, 'toRef', 'toSelector')}", dom.drag
        ),
        "upload": _on_page(
            False, lambda a: f"upload {say.listed(a.get('paths', []))} into {say.element(a)}", dom.upload
        ),
        # The one action that runs while a dialog is open: it answers the dialog.
        "dialog": _acts("page", say.dialog, dom.dialog),
        "scroll": _on_page(False, say.scroll, dom.scroll),
        "wait_for": _on_page(True, say.wait_for, waits.wait_for),
    },
    "browser_devtools": {
        # What the executor recorded: a dialog holds up nothing here.
        "console": _reads("page", say.fixed("read the page's console messages"), devtools.console),
        "network": _reads("page", say.fixed("read the page's network requests"), devtools.network),
        "request": _on_page(
            True, lambda a: f"read the network request {say.quoted(a.get('id', ''))}", devtools.request
        ),
    },
    "browser_screenshot": {
        "capture": _on_page(True, say.fixed("take a screenshot of the page"), screenshot.capture)
    },
    "browser_storage": {
        "get": _reads("none", say.storage("read"), target="none"),
        "keys": _reads("none", say.fixed("list the keys of Tabgate's tool storage"), target="none"),
        "set": _acts("none", say.storage("store"), target="none"),
        "remove": _acts("none", say.storage("remove"), target="none"),
    },
}


def _default_action(tool: str) -> str | None:
    spec = BROWSER_TOOLS.get(tool)
    default = spec.params.model_fields["action"].default if spec is not None else None
    return default if isinstance(default, str) else None


# A tool this table does not name (a test's stand-in) is one chrome.* call on no tab, asked as acting.
_UNDECLARED = _acts("none", say.fixed("run a browser tool"), target="none")


def action_of(tool: str, action: str | None) -> BrowserAction:
    """The declaration of a validated call's action (each tool's `action` Literal is this table's keys)."""
    actions = ACTIONS.get(tool)
    return actions[action] if actions is not None and action is not None else _UNDECLARED


def declared(tool: str, action: str | None) -> BrowserAction | None:
    """The declaration of `tool`'s `action` (a tool with a default action, browser_screenshot, may omit it);
    None for a name that is no browser tool or an action it does not have."""
    actions = ACTIONS.get(tool)
    name = action if action is not None else _default_action(tool)
    if actions is None or name is None or name not in actions:
        return None
    return actions[name]


def describe(tool: str, action: str | None) -> ActionInfo | None:
    """What `tool`'s `action` does, as consent asks it (see `declared`)."""
    found = declared(tool, action)
    return None if found is None else found.info
