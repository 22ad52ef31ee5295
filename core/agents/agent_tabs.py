"""The agents' tabs in the browser (contract §8.1, §8.2): looked up, opened, grouped, remembered after a call.

An agent's own tabs sit in a tab group titled with its name; a tab a page of one of them opens (a link with a
target, `window.open`, noopener too) joins it when the agent was at work in that tab: during one of its calls
there or within Chrome's user-activation window after it. A tab the person opens from it later is the
person's. The tab a call used becomes the agent's default, so its next call without a tab lands there, never
on the person's active tab. Tabs are looked up as the person sees them, by the gateway itself rather than an
agent's call.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from core.agents.call_checks import Prepared, Refusal
from core.agents.identity import AgentBook, AgentState, TabGroups
from core.browser.context import refs_of
from core.browser.refs import FrameSite
from core.browser.tab import BrowserTabArgs, wire_of
from core.calls.capabilities import BrowserCapability, BrowserToolError, McpErrorCode
from core.calls.chrome_tab import tab_answer, tabs_answer
from core.messages.runtime_messages import TabsCreated, TabsRemoved
from core.web.fence import split

type Answer = dict[str, Any]

TAB_LOOKUP_TIMEOUT_MS = 5_000
_ALL_TABS = wire_of(BrowserTabArgs(action="query"))  # the gateway's own look-up, as browser_tab sends it
# How long after an agent's call a tab its page opens is still the agent's doing: Chrome lets a page open a
# window for 5 s after the input that activated it (a link with a target opens at once).
OPENS_AFTER_CALL_S = 5.0
# How long a tab just created may take to show its first page, and how often to look: Chrome's new-tab page
# goes on to another chrome:// URL after create has answered, and a first load that read the tab before that
# found it "moved" by the time it acted (seen on a busy machine).
FIRST_PAGE_S = 5.0
FIRST_PAGE_POLL_S = 0.05


class AgentTabs:
    def __init__(
        self,
        book: AgentBook,
        browser: BrowserCapability | None,
        groups: TabGroups | None,
        changed: Callable[[], None],
    ) -> None:
        self._book = book
        self._browser = browser
        self._groups = groups
        self._changed = changed  # the popup hears that an agent's tabs changed
        self._worked: dict[int, float] = {}  # tab id → when an agent's last call there ended (monotonic)

    async def all(self) -> dict[int, dict[str, Any]] | None:
        """Every open tab by id, as the person sees them (the gateway's own look-up, not an agent's call);
        None when the browser could not say."""
        if self._browser is None:
            return None
        try:
            tabs = tabs_answer(
                await self._browser.call("browser_tab", _ALL_TABS, timeout_ms=TAB_LOOKUP_TIMEOUT_MS)
            )
        except (BrowserToolError, ValueError):  # ValueError: not Chrome's tabs
            return None
        return {tab["id"]: tab for tab in tabs}

    async def tab(self, tab_id: int) -> dict[str, Any]:
        """That one tab as the person sees it (the `tab` executor: one chrome.tabs.get, not every tab)."""
        if self._browser is None:
            raise Refusal(f"Tabgate could not look up tab {tab_id}; try again.", failed=True)
        try:
            tab = await self._browser.call("tab", {"tabId": tab_id}, timeout_ms=TAB_LOOKUP_TIMEOUT_MS)
        except BrowserToolError as error:
            if error.code != McpErrorCode.INVALID_PARAMS:  # the executor's answer for a tab that is gone
                raise Refusal(f"Tabgate could not look up tab {tab_id}; try again.", failed=True) from None
            self._book.tab_removed(tab_id)
            raise Refusal(
                f"Tab {tab_id} is closed; browser_tab action=query lists your tabs.", failed=True
            ) from None
        if not isinstance(tab, dict):
            raise Refusal(f"Tabgate could not look up tab {tab_id}; try again.", failed=True)
        return tab_answer(tab) | {"granted": tab.get("granted") is True}

    async def first_page_shown(self, tab_id: int) -> None:
        """Until the tab just created has finished showing its first page, at most FIRST_PAGE_S (a tab still
        loading then, or gone, is left to the call that follows to report)."""
        deadline = _now() + FIRST_PAGE_S
        while _now() < deadline:
            try:
                tab = await self.tab(tab_id)
            except Refusal:
                return
            if tab.get("status") == "complete":
                return
            await asyncio.sleep(FIRST_PAGE_POLL_S)

    def frame_of(self, tab_id: int, ref: str) -> FrameSite | None:
        """The child frame a ref of the tab's last snapshot is in (the refs the browser tools keep)."""
        return None if self._browser is None else refs_of(self._browser).frame_of(tab_id, ref)

    async def open_for(self, agent: AgentState) -> int:
        if self._groups is None:
            raise Refusal("You have no tab, and Tabgate cannot open one here.", failed=True)
        try:
            tab_id = await self._groups.create()
        except BrowserToolError as error:
            raise Refusal(f"You have no tab, and Tabgate could not open one: {error}", failed=True) from None
        agent.own.add(tab_id)
        agent.last_tab = tab_id
        await self._group(agent, tab_id)
        self._changed()
        return tab_id

    async def used(self, agent: AgentState, prepared: Prepared, answer: Answer) -> int | None:
        """After a call ran: its tab is the agent's default; a tab it created is its own, in its group (its
        id is returned)."""
        if prepared.tab_id is not None:
            self._worked[prepared.tab_id] = _now()
        if prepared.creates_tab:
            created = _created_tab_id(answer)
            if created is None:
                return None
            agent.own.add(created)
            agent.last_tab = created
            await self._group(agent, created)
            self._changed()
            return created
        if prepared.tab_id is not None and prepared.tab_id in agent.tabs():
            agent.last_tab = prepared.tab_id
        return None

    async def created(self, message: TabsCreated) -> Answer:
        """`tabs/created`: a tab the page of `sourceTabId` opened is that tab's agent's, in its group, when
        the agent was at work there; otherwise the person opened it (or the page did on its own)."""
        tab_id, source = message.tabId, message.sourceTabId
        if self._at_work(source):
            owner = self._book.tab_created(tab_id, source)
            if owner is not None:
                await self._group(owner, tab_id)
                self._changed()
        return {"ok": True}

    def _at_work(self, tab_id: int) -> bool:
        owner = self._book.owner_of(tab_id)
        if owner is None:
            return False
        if any(call.tab_id == tab_id for call in owner.running.values()):
            return True
        worked = self._worked.get(tab_id)
        return worked is not None and _now() - worked < OPENS_AFTER_CALL_S

    async def removed(self, message: TabsRemoved) -> Answer:
        """`tabs/removed`: the tab is nobody's any more."""
        self._book.tab_removed(message.tabId)
        self._worked.pop(message.tabId, None)
        return {"ok": True}

    async def _group(self, agent: AgentState, tab_id: int) -> None:
        if self._groups is None:
            return
        try:
            agent.group = await self._groups.add(tab_id, agent.identity.name, agent.group)
        except BrowserToolError:
            # The group is gone (the person closed or ungrouped it): start a new one.
            try:
                agent.group = await self._groups.add(tab_id, agent.identity.name, None)
            except BrowserToolError:
                return


def _now() -> float:
    return time.monotonic()


def _created_tab_id(answer: Answer) -> int | None:
    output = answer.get("output")
    text = output.get("output") if isinstance(output, dict) else None
    parts = split(text) if isinstance(text, str) else None  # the tab's title and URL come fenced
    try:
        created = json.loads(parts.page) if parts is not None else None
    except ValueError:
        return None
    tab_id = created.get("id") if isinstance(created, dict) else None
    return tab_id if isinstance(tab_id, int) else None
