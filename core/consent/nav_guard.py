"""Where an agent's tab may go (contract §8.2): the decision on one document request Chrome holds.

On an agent's tabs the service worker has Chrome's debugger pause every document request before it leaves the
browser (redirect hops included) and asks Python what to do with it. A top-level load may go to a site the
agent may act on in that tab: the site the tab shows now (moving within a site moves the agent nowhere), the
site of the agent's call running on that tab (what the person approved it for), a site the person allowed for
the agent's session or once for that tab, or anywhere for an agent the person trusts. Anything else is stopped
before a single byte reaches that site, and the person is asked for it. A frame's load leaves the agent where
it is, so it goes on unless it carries a body (a form posted into a frame) to a site the agent may not act on:
that is stopped, and nobody is asked (a page's frames are not its moves).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from core.calls.tab_scope import site_of
from core.messages.runtime_messages import NavPaused
from core.web.fence import PageText


class Outcome(StrEnum):
    GO = "go"  # continue the request
    STOP = "stop"  # fail it: the tab stays where it was
    BLOCK = "block"  # fail a frame's request: the frame shows Chrome's "blocked" page


@dataclass(frozen=True, slots=True)
class Standing:
    """What the agent may do in that tab now."""

    trusted: bool  # the person lets this agent act without asking
    acting: Collection[str]  # sites of the agent's calls running on the tab now (approved)
    allowed: Collection[str]  # sites the person allowed for the session, or once for this tab

    def may_go(self, site: str, shown: str | None) -> bool:
        return self.trusted or site == shown or site in self.acting or site in self.allowed


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    site: str | None = None  # the destination refused (ask the person for it when a top-level load)

    def to_wire(self) -> dict[str, object]:
        if self.outcome is Outcome.GO:
            return {"continue": True}
        # Aborted leaves the tab on the page it shows; BlockedByClient gives a frame Chrome's error page.
        reason = "Aborted" if self.outcome is Outcome.STOP else "BlockedByClient"
        return {"continue": False, "errorReason": reason}


GO = Verdict(Outcome.GO)


def decide(paused: NavPaused, standing: Standing) -> Verdict:
    site = site_of(paused.url)
    if site is None:
        # Not a web page (data:, about:, an extension's page): no site to grant; the navigation tools send a
        # tab that ends on a page Tabgate may not control to about:blank.
        return GO
    if standing.may_go(site, site_of(paused.shown)):
        return GO
    if paused.top:
        return Verdict(Outcome.STOP, site)
    return Verdict(Outcome.BLOCK, site) if paused.body else GO


def stopped_words(paused: NavPaused) -> str:
    """What the agent is told of a stopped load, the address it tried fenced (the page chose it)."""
    if not paused.top:
        words = (
            f"Tabgate stopped a frame in tab {paused.tabId} from sending a form ({paused.method}) to a site "
            "you have no consent for: no request reached it. Where it tried to send it:"
        )
        return PageText(paused.url, before=words).render()
    if paused.restored:
        what = (
            f"Tabgate stopped tab {paused.tabId} from going back or forward to another site (a page Chrome "
            "kept in memory, so no request was made): the tab is taken back to the page it left."
        )
    else:
        how = "a server redirect" if paused.redirect else "the page"
        what = (
            f"Tabgate stopped tab {paused.tabId} from going to another site ({how} led there): no request "
            "reached that site, and the tab stays on its page."
        )
    words = (
        f"{what} You have no consent for that site; the person is asked for it in Tabgate's popup. Once they "
        "allow it, do the action again. Where it tried to go:"
    )
    return PageText(paused.url, before=words).render()
