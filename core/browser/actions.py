"""Every browser action, declared once (contract §7): whether it reads or acts, whether it moves a tab, what
it targets, what the tab must show for it to run, whether an open JavaScript dialog blocks it, its plain
words, the argument fields it takes, and who runs it (Python through the debugger, or the service worker's
chrome.* executor). Consent (`describe`), the person's view (`words`), the parallel gate (`parallel`), each
tool's published schema and argument checks (core/browser/action_fields.py, applied in tool_table.py) and the
wrapper that runs every action (core/tools/handlers/browser.py) all read this table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal

from core.browser import action_words as say
from core.browser import devtools, dom, navigation, page, page_reads, screenshot, storage, tab, waits
from core.browser.action_fields import Fields, takes
from core.browser.action_words import Words
from core.browser.context import PageContext
from core.calls.chrome_tab import address_answer, tab_answer, tabs_answer
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
    fields: Fields  # the arguments it takes: the tool's schema and checks are made of these
    run: Runner | None  # None: the service worker's chrome.* executor, as one call
    # Its whole answer is text from the page (contract §7.1): the handler fences it. An action that mixes
    # its own words with the page's returns a `PageText` instead, and is fenced whatever this says.
    page_text: bool = False
    # While a JavaScript dialog is open in its tab it does not run (it would wait on the dialog): the answer
    # says the dialog and how to answer it.
    blocked_by_dialog: bool = False
    # Bounds and timings the chrome.* executor applies as given, from the call's arguments (decided here,
    # not in the worker).
    limits: Callable[[Any], Mapping[str, int]] = lambda _args: {}
    # The answer Python makes of what chrome.* answered, given the call's arguments (None: that answer as is).
    answer: Callable[[Any, Any], Any] | None = None

    @property
    def parallel(self) -> bool:
        """Runs beside the other calls of its turn that read; one that acts runs alone."""
        return self.info.reads


def _action(
    access: Access,
    words: Words,
    fields: Fields,
    run: Runner | None = None,
    *,
    reads: bool,
    target: Target = "tab",
    moves_tab: bool = False,
    page_text: bool = False,
    blocked_by_dialog: bool = False,
) -> BrowserAction:
    info = ActionInfo(reads=reads, moves_tab=moves_tab, target=target)
    return BrowserAction(info, access, words, fields, run, page_text, blocked_by_dialog)


_reads = partial(_action, reads=True)
_acts = partial(_action, reads=False)


_TAB = ("tabId",)
_ELEMENT = (("ref", "selector"),)  # the one element the action acts on


def _page_read(what: str, fields: Fields) -> BrowserAction:
    """title, url, text, html, links: one script in the page (chrome.scripting), which a dialog holds up;
    page_reads.py bounds what it sends and makes the answer."""
    read = _reads(
        "page", say.fixed(f"read the page's {what}"), fields, page_text=True, blocked_by_dialog=True
    )
    return replace(read, limits=page_reads.bounds, answer=page_reads.answer)


def _timed(_args: Any) -> Mapping[str, int]:
    return dict(navigation.TIMING)


def _of_tab(read: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    """A reader of a chrome.* tab answer, which needs nothing of the call's arguments."""
    return lambda result, _args: read(result)


def _moves(words: Words) -> BrowserAction:
    """reload, back, forward: one chrome.* call that moves the tab, timed as navigation.py says."""
    fields = takes(optional=(*_TAB, "waitForLoad", "timeoutMs"))
    moves = _acts("tab", words, fields, moves_tab=True, page_text=True)
    return replace(moves, limits=_timed, answer=_of_tab(tab_answer))


def _on_page(reads: bool, words: Words, fields: Fields, run: Runner) -> BrowserAction:
    """A debugger-run action in a page: a dialog holds up its commands."""
    return _action("page", words, fields, run, reads=reads, blocked_by_dialog=True)


def _on_element(
    reads: bool, words: Words, run: Runner, *required: str, optional: tuple[str, ...] = ()
) -> BrowserAction:
    """A debugger-run action on one element, named by ref or selector."""
    return _on_page(reads, words, takes(*required, optional=(*_TAB, *optional), one_of=_ELEMENT), run)


_TAB_FILTERS = ("url", "active", "pinned", "windowId")  # create takes them as settings
_PAGE_READ_FIELDS = {
    "title": takes(optional=_TAB),
    "url": takes(optional=_TAB),
    "text": takes(optional=(*_TAB, "maxChars")),
    "html": takes(optional=(*_TAB, "maxChars")),
    "links": takes(optional=(*_TAB, "maxChars")),
}

_STORED_KEYS = takes("keys", optional=("area",))

ACTIONS: Mapping[str, Mapping[str, BrowserAction]] = {
    # Tabs' titles and URLs are the pages' text: those answers are fenced (page_text).
    "browser_tab": {
        "query": replace(
            _reads(
                "none",
                say.fixed("list its tabs"),
                takes(optional=(*_TAB_FILTERS, "title", "currentWindow")),
                tab.call,
                target="none",
                page_text=True,
            ),
            answer=_of_tab(tabs_answer),
        ),
        # create and update move a tab only when they name a url.
        "create": replace(
            _acts(
                "none",
                lambda a: f"open a new tab at {say.quoted(a['url'])}" if "url" in a else "open a new tab",
                takes(optional=_TAB_FILTERS),
                tab.call,
                target="url",
                moves_tab=True,
                page_text=True,
            ),
            answer=_of_tab(tab_answer),
        ),
        "close": _acts("tab", say.fixed("close the tab"), takes("tabId"), tab.call),
        "activate": replace(
            _acts("tab", say.fixed("bring the tab to the front"), takes("tabId"), tab.call, page_text=True),
            answer=_of_tab(tab_answer),
        ),
        "update": replace(
            _acts(
                "tab",
                lambda a: f"load {say.quoted(a['url'])} in the tab" if "url" in a else "change the tab",
                takes("tabId", optional=("url", "active", "pinned")),
                tab.call,
                moves_tab=True,
                page_text=True,
            ),
            answer=_of_tab(tab_answer),
        ),
    },
    "browser_navigation": {
        "navigate": _acts(
            "navigate",
            lambda a: f"go to {say.quoted(a.get('url', ''))}",
            takes("url", optional=(*_TAB, "waitForLoad", "timeoutMs")),
            navigation.navigate,
            moves_tab=True,
            page_text=True,
            blocked_by_dialog=True,
        ),
        "reload": _moves(say.fixed("reload the page")),
        "back": _moves(say.fixed("go back a page")),
        "forward": _moves(say.fixed("go forward a page")),
        "current_url": replace(
            _reads("tab", say.fixed("read the page's address"), takes(optional=_TAB), page_text=True),
            answer=_of_tab(address_answer),
        ),
        "wait_for_load": replace(
            _reads(
                "tab",
                say.fixed("wait for the page to load"),
                takes(optional=(*_TAB, "timeoutMs")),
                page_text=True,
            ),
            limits=_timed,
            answer=_of_tab(tab_answer),
        ),
    },
    "browser_page": {
        **{what: _page_read(what, fields) for what, fields in _PAGE_READ_FIELDS.items()},
        "snapshot": _on_page(
            True,
            say.fixed("read the page's outline"),
            takes(optional=(*_TAB, "maxChars", "ref", "offset", "since")),
            page.snapshot,
        ),
        "find": _on_page(
            True,
            lambda a: f"find {say.quoted(a.get('text', a.get('regex', '')))} on the page",
            takes(optional=(*_TAB, "maxChars"), one_of=(("text", "regex"),)),
            page.find,
        ),
    },
    "browser_dom": {
        "click": _on_element(False, say.click, dom.click, optional=("button", "clickCount", "modifiers")),
        "hover": _on_element(False, lambda a: f"move the mouse over {say.element(a)}", dom.hover),
        "type": _on_element(False, say.type_, dom.type_, "text", optional=("submit", "clear")),
        "press": _on_page(
            False,
            lambda a: f"press {say.quoted(a.get('key', ''))}{say.on(a)}",
            takes("key", optional=(*_TAB, "ref", "selector")),
            dom.press,
        ),
        "select": _on_element(
            False,
            lambda a: f"choose {say.listed(a.get('values', []))} in {say.element(a)}",
            dom.select,
            "values",
        ),
        "check": _on_element(
            False,
            lambda a: f"{'uncheck' if a.get('checked') is False else 'check'} {say.element(a)}",
            dom.check,
            "checked",
        ),
        "fill_form": _on_page(False, say.fill_form, takes("fields", optional=_TAB), dom.fill_form),
        "drag": _on_page(
            False,
            lambda a: f"drag {say.element(a)} onto {say.element(a, 'toRef', 'toSelector')}",
            takes(optional=_TAB, one_of=(*_ELEMENT, ("toRef", "toSelector"))),
            dom.drag,
        ),
        "upload": _on_element(
            False,
            lambda a: f"upload {say.listed(a.get('paths', []))} into {say.element(a)}",
            dom.upload,
            "paths",
        ),
        # The one action that runs while a dialog is open: it answers the dialog.
        "dialog": _acts("page", say.dialog, takes("accept", optional=(*_TAB, "promptText")), dom.dialog),
        # An element, or x/y (core/browser/dom_args.py checks that one of them is given).
        "scroll": _on_page(
            False, say.scroll, takes(optional=(*_TAB, "ref", "selector", "x", "y")), dom.scroll
        ),
        "wait_for": _on_page(
            True,
            say.wait_for,
            takes(optional=(*_TAB, "timeoutMs"), one_of=(("text", "textGone", "ref", "selector"),)),
            waits.wait_for,
        ),
    },
    "browser_devtools": {
        # What the executor recorded: a dialog holds up nothing here.
        "console": _reads(
            "page",
            say.fixed("read the page's console messages"),
            takes(optional=(*_TAB, "level", "limit", "scope")),
            devtools.console,
        ),
        "network": _reads(
            "page",
            say.fixed("read the page's network requests"),
            takes(optional=(*_TAB, "filter", "limit", "scope")),
            devtools.network,
        ),
        "request": _on_page(
            True,
            lambda a: f"read the network request {say.quoted(a.get('id', ''))}",
            takes("id", optional=_TAB),
            devtools.request,
        ),
    },
    "browser_screenshot": {
        "capture": _on_page(
            True,
            say.fixed("take a screenshot of the page"),
            takes(optional=(*_TAB, "format", "quality", "fullPage", "ref")),
            screenshot.capture,
        )
    },
    "browser_storage": {
        "get": _reads("none", say.storage("read"), _STORED_KEYS, storage.get, target="none"),
        "keys": _reads(
            "none",
            say.fixed("list the keys of Tabgate's tool storage"),
            takes(optional=("area",)),
            storage.keys,
            target="none",
        ),
        "set": _acts(
            "none", say.storage("store"), takes("items", optional=("area",)), storage.set_, target="none"
        ),
        "remove": _acts("none", say.storage("remove"), _STORED_KEYS, storage.remove, target="none"),
    },
}

# A tool this table does not name (a test's stand-in) is one chrome.* call on no tab, asked as acting.
UNDECLARED = _acts("none", say.fixed("run a browser tool"), takes(), target="none")
