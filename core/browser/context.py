"""What a debugger-driven browser action gets: the executor, the tabs' refs, the upload folders."""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from core.browser.cdp import Cdp
from core.browser.refs import TabRefs
from core.capabilities import BrowserCapability

# The refs live as long as the capability they were made through (the service worker of this extension).
_REFS: WeakKeyDictionary[BrowserCapability, TabRefs] = WeakKeyDictionary()


def refs_of(browser: BrowserCapability) -> TabRefs:
    refs = _REFS.get(browser)
    if refs is None:
        refs = _REFS[browser] = TabRefs()
    return refs


@dataclass(frozen=True, slots=True)
class PageContext:
    cdp: Cdp
    refs: TabRefs
    upload_dirs: tuple[str, ...]
