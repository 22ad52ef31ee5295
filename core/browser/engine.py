"""Which browser actions run through the debugger (Python builds their commands), by tool and action.

Every other action goes to its chrome.* executor in the service worker as one call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from core.browser import dom_actions, page_actions
from core.browser.capture_action import capture
from core.browser.context import PageContext
from core.browser.devtools import ACTIONS as DEVTOOLS_ACTIONS
from core.browser.devtools import BrowserDevtoolsArgs
from core.browser.dom import BrowserDomArgs
from core.browser.navigate_action import navigate
from core.browser.navigation import BrowserNavigationArgs
from core.browser.page import BrowserPageArgs
from core.browser.screenshot import BrowserScreenshotArgs

type Result = str | dict[str, Any]
type Runner = Callable[[PageContext], Awaitable[Result]]


def _page(a: BrowserPageArgs) -> Runner | None:
    if a.action == "snapshot":
        return lambda ctx: page_actions.snapshot(
            ctx, a.tabId, ref=a.ref, offset=a.offset, max_chars=a.maxChars
        )
    if a.action == "find":
        return lambda ctx: page_actions.find(ctx, a.tabId, pattern=a.pattern(), max_chars=a.maxChars)
    return None


def runner(args: BaseModel) -> Runner | None:
    """The debugger runner for these validated arguments, or None for the service worker's executor."""
    if isinstance(args, BrowserPageArgs):
        return _page(args)
    if isinstance(args, BrowserDomArgs):
        dom = dom_actions.ACTIONS[args.action]
        return lambda ctx: dom(ctx, args)
    if isinstance(args, BrowserDevtoolsArgs):
        devtools = DEVTOOLS_ACTIONS[args.action]
        return lambda ctx: devtools(ctx, args)
    if isinstance(args, BrowserNavigationArgs) and args.action == "navigate":
        return lambda ctx: navigate(ctx, args)
    if isinstance(args, BrowserScreenshotArgs) and (args.fullPage or args.ref is not None):
        return lambda ctx: capture(ctx, args)
    return None
