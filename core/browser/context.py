"""What a debugger-driven browser action gets: executor, tab, refs, upload folders, host."""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from core.browser.executor import Cdp
from core.browser.refs import TabRefs
from core.calls.capabilities import BrowserCapability, McpCapability
from core.calls.tab_scope import TabFacts

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
    # The tab the call runs on, as the policy checked it (None for a call that names no tab).
    tab: TabFacts | None
    upload_dirs: tuple[str, ...]
    # The native host, which checks upload paths on disk; None when no host is connected.
    host: McpCapability | None
    # Who is calling: an agent's id (each agent is its own caller), or the person.
    caller: str = "person"

    @property
    def by_agent(self) -> bool:
        return self.caller != "person"
