"""Where an agent's tabs go (contract §8.2): the agents' tabs held by the browser, each held load decided.

The service worker holds every document request of the tabs named here (the tabs agents opened and those
opened from them; a tab the person shares only while the agent's call on it runs and for Chrome's
user-activation window after it, so what the agent's click causes there is checked while the person's own
moves in their tab later are not held at all; never the person's own) and asks `nav/paused` about each;
the decision is core/consent/nav_guard.py's. A stopped top-level load asks the person for its site in the
background (the board's question for that site): the request is not kept waiting for the answer, so nothing
reaches that site behind the agent's back later, and the agent hears at once (with its call's answer, or its
next one) where the page tried to go. *Allow once* lets the tab go to that site once, *Allow for this
session* is the usual session grant; either way the agent does the action again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from core.agents.agent_tabs import OPENS_AFTER_CALL_S
from core.agents.call_checks import question_of
from core.agents.identity import AgentBook, AgentState
from core.agents.plain_words import summarize
from core.calls.capabilities import BrowserCapability, BrowserToolError
from core.calls.tab_scope import site_of
from core.consent.board import ConsentBoard, ConsentRefused, Question
from core.consent.nav_guard import Outcome, Standing, decide, stopped_words
from core.messages.runtime_messages import NavPaused

type Answer = dict[str, Any]
type Config = Callable[[], Awaitable[Answer]]

GUARD_TIMEOUT_MS = 5_000
UNHELD = "Tabgate could not hold this tab's page loads for its consent checks"
NOTES_KEPT = 4  # notes waiting for an agent's next answer (the oldest go first)


class GuardFailed(Exception):
    """The browser did not take the tabs to hold; a call that would move a tab unheld must not run."""

    def __init__(self, why: str) -> None:
        super().__init__(f"{UNHELD}: {why}")


@dataclass
class _Tab:
    """What the guard knows of one agent tab."""

    session: str | None = None  # the session whose call used it last: its grants apply
    acting: Counter[str] = field(default_factory=Counter)  # sites of calls running on it now
    once: set[str] = field(default_factory=set)  # sites the person allowed once for it
    asking: set[str] = field(default_factory=set)  # sites the person is being asked about for it
    calls: int = 0  # the calls running on it now
    until: float = 0.0  # a shared tab is held until then after the agent's last call on it (monotonic)
    release: asyncio.Task[None] | None = None  # tells the browser to let go of a shared tab then


class AgentNavigation:
    def __init__(
        self, book: AgentBook, consent: ConsentBoard, browser: BrowserCapability | None, config: Config
    ) -> None:
        self._book = book
        self._consent = consent
        self._browser = browser
        self._config = config
        self._tabs: dict[int, _Tab] = {}
        self._guarded: frozenset[int] = frozenset()  # as last told to the browser (a new one holds none)
        self._notes: dict[str, deque[str]] = {}  # agent id → words for its next answer
        self._asking: set[asyncio.Task[None]] = set()

    async def guard(self) -> None:
        """Tell the browser which tabs to hold (every agent's own that it has used), when that changed. A tab
        the person shares stays the person's: they may go anywhere in it, so its loads are held only around
        the agent's call there; nor are a tab's held that only joined an agent by its opener until the agent
        uses it (Chrome names an opener for some tabs the person opens too). GuardFailed when the browser did
        not take the list (it is told again at the next guard)."""
        tabs = frozenset(tab for agent in self._book.all() for tab in agent.tabs() if self._holds(agent, tab))
        if tabs == self._guarded or self._browser is None:
            return
        try:
            await self._browser.call("cdp.guard", {"tabs": sorted(tabs)}, timeout_ms=GUARD_TIMEOUT_MS)
        except BrowserToolError as exc:
            raise GuardFailed(str(exc)) from exc
        self._guarded = tabs
        for gone in set(self._tabs) - tabs:
            del self._tabs[gone]

    def used(self, tab_id: int | None) -> None:
        """The agent used this tab (or created it): its loads are held from now on."""
        if tab_id is not None:
            self._tabs.setdefault(tab_id, _Tab())

    def _holds(self, agent: AgentState, tab_id: int) -> bool:
        tab = self._tabs.get(tab_id)
        if tab is None:
            return False
        if tab_id in agent.own:
            return True
        return tab.session in agent.sessions and (tab.calls > 0 or _now() < tab.until)

    def worker_restarted(self) -> None:
        """A new service worker holds no tab: tell it again before the next call."""
        self._guarded = frozenset()

    @contextmanager
    def acting(self, tab_id: int | None, session: str, site: str | None) -> Iterator[None]:
        """While a call runs on the tab: its session's grants apply there, and its site is approved."""
        if tab_id is None:
            yield
            return
        tab = self._tabs.setdefault(tab_id, _Tab())
        tab.session = session
        tab.calls += 1
        if site is not None:
            tab.acting[site] += 1
        try:
            yield
        finally:
            tab.calls -= 1
            tab.until = _now() + OPENS_AFTER_CALL_S
            if site is not None:
                tab.acting[site] -= 1
                if tab.acting[site] <= 0:
                    del tab.acting[site]
            if any(tab_id in agent.shared for agent in self._book.all()):
                self._release_later(tab)

    def _release_later(self, tab: _Tab) -> None:
        """The browser lets go of a shared tab once the window after the agent's call ended (one timer a tab,
        the latest call's)."""
        if tab.release is not None:
            tab.release.cancel()

        async def release() -> None:
            await asyncio.sleep(OPENS_AFTER_CALL_S)
            with contextlib.suppress(GuardFailed):  # told again before the next call
                await self.guard()

        tab.release = asyncio.ensure_future(release())

    def with_notes(self, agent: AgentState, answer: Answer) -> Answer:
        """The call's answer with what the guard stopped for this agent since its last answer."""
        notes = self._notes.pop(agent.id, None)
        output = answer.get("output")
        if not notes:
            return answer
        if not isinstance(output, dict) or not isinstance(output.get("output"), str):
            self._notes[agent.id] = notes  # told with a later text answer
            return answer
        text = "\n\n".join([output["output"], *notes])
        return answer | {"output": output | {"output": text}}

    async def paused(self, paused: NavPaused) -> Answer:
        """`nav/paused`: continue or fail one held request (an unknown tab's goes on: it is nobody's)."""
        agent = next((a for a in self._book.all() if self._holds(a, paused.tabId)), None)
        tab = self._tabs.get(paused.tabId)
        if agent is None or tab is None:
            return {"continue": True}  # nobody's, or a shared tab past the agent's call: the person's
        session = tab.session if tab.session in agent.sessions else next(iter(sorted(agent.sessions)), None)
        config = await self._config()
        trusted = agent.identity.trusted_by(config.get("gatewayTrusted", []))
        site = site_of(paused.url)
        granted = {site} if site is not None and self._granted(agent, session, site) else set()
        verdict = decide(paused, Standing(trusted, set(tab.acting), tab.once | granted))
        if verdict.outcome is Outcome.GO:
            if paused.top and site is not None:
                tab.once.discard(site)  # allowed once: used by this load
            return verdict.to_wire()
        self._note(agent, stopped_words(paused))
        if verdict.outcome is Outcome.STOP and verdict.site is not None and session is not None:
            self._ask(agent, session, paused, verdict.site, float(config.get("approvalTimeoutSec", 120)))
        return verdict.to_wire()

    def _granted(self, agent: AgentState, session: str | None, site: str) -> bool:
        return session is not None and self._consent.granted(session, _question(agent, None, site))

    def _note(self, agent: AgentState, words: str) -> None:
        self._notes.setdefault(agent.id, deque(maxlen=NOTES_KEPT)).append(words)

    def _ask(self, agent: AgentState, session: str, paused: NavPaused, site: str, timeout_s: float) -> None:
        """The person is asked for the site in the background; one question per tab and site at a time."""
        tab = self._tabs.setdefault(paused.tabId, _Tab())
        if site in tab.asking:
            return
        tab.asking.add(site)
        question = _question(agent, paused, site)

        async def ask() -> None:
            try:
                await self._consent.ask(session, question, timeout_s=timeout_s)
                if not self._consent.granted(session, question):  # allowed once: this tab, one load
                    tab.once.add(site)
            except ConsentRefused:
                pass  # denied, unanswered or withdrawn: the tab stays where it is
            finally:
                tab.asking.discard(site)

        task = asyncio.ensure_future(ask())
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)


def _question(agent: AgentState, paused: NavPaused | None, site: str) -> Question:
    """The board's question for going to `site` in the paused load's tab (its scope: the site)."""
    arguments = {"url": paused.url} if paused is not None else {}
    where = (paused.tabId, paused.title) if paused is not None else None
    untitled = (paused.tabId, None) if paused is not None else None
    why = " (the page tried to go there; Tabgate stopped it before any request left the browser)"
    summary = summarize("browser_navigation", "navigate", arguments, tab=where, site=site) + why
    told = summarize("browser_navigation", "navigate", arguments, tab=untitled, site=site)
    asked = question_of(agent, "browser_navigation", "navigate", site, summary, told)
    return replace(
        asked, site=site, tab_id=where[0] if where else None, tab_title=where[1] if where else None
    )


def _now() -> float:
    return time.monotonic()
