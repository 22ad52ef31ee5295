"""An agent's call checked before it runs (contract §8.1): its arguments, its tab, what to ask, what to bind.

Every check happens before anyone is asked: a person is never asked about a call that would fail anyway. A
browser call's arguments are validated strictly, its tab must be the agent's (or one Tabgate opens for it),
and its question names the tab and the site; the site the tab shows now is bound, for the browser to re-check
where the action executes. Other calls are asked about by tool, unless they only read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pydantic import ValidationError

from core.agents.identity import AgentState
from core.agents.plain_words import summarize
from core.browser.dom_args import BrowserDomArgs
from core.browser.keys import clipboard_use
from core.browser.refs import FrameSite
from core.browser.tool_table import BROWSER_TOOLS, describe
from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.outcome import Outcome
from core.calls.tab_scope import CallTarget, TabFacts, site_of
from core.calls.validation import format_validation_error
from core.consent.board import Question
from core.tools.tool_facts import needs_yes

type Answer = dict[str, Any]

PAUSED = (
    "paused by the person: Tabgate refuses every acting call until the person resumes agents in its popup"
)
# Tab moves whose destination the tab's history decides, after the question.
HISTORY_MOVES = frozenset({("browser_navigation", "back"), ("browser_navigation", "forward")})


class Refusal(Exception):
    """A call that does not run. `failed`: a failed output (the arguments or tab are wrong); otherwise the
    request is refused (gateway off, paused, denied)."""

    def __init__(self, text: str, *, failed: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.failed = failed

    def internal(self, call_id: str) -> Answer:
        """The core's own answer shape, as the history records it, with its outcome: failed, or denied."""
        if self.failed:
            output = {"type": "function_call_output", "call_id": call_id, "output": self.text}
            return {"output": output, "success": False, "outcome": Outcome.FAILED.value}
        refused = McpRequestError(McpErrorCode.SERVER_UNAVAILABLE, self.text).to_wire()
        return refused | {"outcome": Outcome.DENIED.value}


@dataclass(frozen=True, slots=True)
class Prepared:
    """A call ready to dispatch: its (completed) arguments, what to ask, and what the browser re-checks."""

    arguments: dict[str, Any]
    question: Question | None  # None: it only reads
    tab_id: int | None
    site: str | None  # the site the tab must still show when the action reaches it
    creates_tab: bool = False
    frame: FrameSite | None = None  # the child frame the action lands in, asked for its own site
    tab: TabFacts | None = None  # the tab as looked up for the question

    def target(self, agent: AgentState, *, fresh: bool) -> CallTarget:
        """What the browser re-checks where the call acts; with the tab looked up for the question while that
        is `fresh` (no one was asked since), so the browser handler does not look it up again."""
        sent: dict[str, Any] = {
            "tabs": sorted(agent.tabs()),
            "tabId": self.tab_id,
            "site": self.site,
            "caller": agent.id,
        }
        if self.frame is not None:  # the child frame the action lands in, re-checked as the site is
            sent["frame"] = self.frame.to_wire()
        target = CallTarget.model_validate(sent)
        return target.with_tab(self.tab) if fresh and self.tab is not None else target


class AgentTabLookup(Protocol):
    """The agent's tabs as the checks need them (core/agents/agent_tabs.py); both raise `Refusal`."""

    async def tab(self, tab_id: int) -> dict[str, Any]:
        """The open tab, as the person sees it."""
        ...

    async def open_for(self, agent: AgentState) -> int:
        """A new tab of the agent's own, in its group; its id."""
        ...

    def frame_of(self, tab_id: int, ref: str) -> FrameSite | None:
        """The child frame a ref of the tab's last snapshot is in; None: the top document."""
        ...


def not_yours(tab_id: int, agent: AgentState) -> str:
    return (
        f"Tab {tab_id} is not one of your tabs. You may use the tabs you opened, the tabs opened from them "
        f"and the tabs the person shares with you. Ask the person to open tab {tab_id} and choose *Share "
        f"this tab with {agent.identity.name}* in Tabgate's popup; browser_tab action=query lists your tabs."
    )


def action_of(arguments: dict[str, Any]) -> str | None:
    action = arguments.get("action")
    return action if isinstance(action, str) else None


def question_of(
    agent: AgentState, tool: str, action: str | None, scope: str, summary: str, told: str
) -> Question:
    """A question from this agent, named as every question names it (a held load's too); a browser call's
    adds its tab and site."""
    return Question(
        agent_id=agent.id,
        agent=agent.identity.name,
        executable=agent.identity.program,  # the popup shows the program apart from, and before, the name
        label=agent.label,
        tool=tool,
        action=action,
        scope=scope,
        summary=summary,
        told=told,
    )


class CallChecks:
    def __init__(self, tabs: AgentTabLookup, paused: Callable[[], bool]) -> None:
        self._tabs = tabs
        self._paused = paused  # the person's pause switch, read at each call

    async def prepare(self, agent: AgentState, tool: dict[str, Any], arguments: dict[str, Any]) -> Prepared:
        """Arguments and tab checked before anyone is asked; the question, when the call acts."""
        name = tool["name"]
        spec = BROWSER_TOOLS.get(name)
        if spec is None:
            return self._prepare_other(agent, tool, arguments)
        try:
            # Strict: a tabId of "123" is a mistake to report, never a tab to guess.
            parsed = spec.params.model_validate_json(json.dumps(arguments), strict=True)
        except ValidationError as error:
            raise Refusal(
                f"failed to parse function arguments: {format_validation_error(error)}", failed=True
            ) from None
        action = getattr(parsed, "action", None)
        key = parsed.key or "" if isinstance(parsed, BrowserDomArgs) and action == "press" else ""
        if (clipboard := clipboard_use(key)) is not None:
            raise Refusal(
                f"Tabgate refused browser_dom press {key}: "
                + (
                    "it would paste the person's clipboard into the page, which no question to the person "
                    "covers. To enter text, use browser_dom type."
                    if clipboard == "paste"
                    else "it would write over what the person copied with what the page selected, which no "
                    "question to the person covers. To read text, use browser_page."
                ),
                failed=True,
            )
        info = describe(name, action)
        reads = info is not None and info.reads
        if self._paused() and not reads:
            raise Refusal(f"Tabgate refused {name if action is None else f'{name} {action}'}: {PAUSED}.")
        tab_id: int | None = getattr(parsed, "tabId", None)
        if tab_id is not None and tab_id not in agent.tabs():
            raise Refusal(not_yours(tab_id, agent), failed=True)
        creates_tab = (name, action) == ("browser_tab", "create")
        takes_tab = "tabId" in spec.params.model_fields and info is not None and info.target != "none"
        if tab_id is None and takes_tab and not creates_tab:
            # Never the person's active tab: the agent's last one, or a new one in its group.
            tab_id = agent.default_tab()
            if tab_id is None:
                tab_id = await self._tabs.open_for(agent)
            arguments = arguments | {"tabId": tab_id}
        if reads:
            return Prepared(arguments, None, tab_id, None)
        tab = await self._tabs.tab(tab_id) if tab_id is not None else None
        tab_site = site_of(str(tab.get("url", ""))) if tab is not None else None
        url = arguments.get("url")
        if info is not None and info.moves_tab and isinstance(url, str):
            # Consent for where the tab goes; the tab must still show what it showed when asked.
            site, bound = site_of(url), tab_site
        else:
            site, bound = tab_site, tab_site
        frame = self._frame(tab_id, parsed, tab_site) if isinstance(parsed, BrowserDomArgs) else None
        if frame is not None:
            site = frame.site  # acting inside a frame is asked for the frame's site (contract §8.2)
        # Back and forward go wherever the tab's history says: the site is not known when asking.
        leaves_for_unknown = (name, action) in HISTORY_MOVES
        title = str(tab.get("title", "")) if tab is not None else None
        where = (tab_id, title) if tab_id is not None else None
        # The frame's site, and the page it sits in.
        said = site if frame is None else f"{site}, in a frame on a page of {tab_site}"
        summary = summarize(
            name, action, arguments, tab=where, site=said, unknown_destination=leaves_for_unknown
        )
        untitled = (tab_id, None) if tab_id is not None else None
        told = summarize(
            name, action, arguments, tab=untitled, site=said, unknown_destination=leaves_for_unknown
        )
        question = replace(
            question_of(agent, name, action, site or f"{name} {action}", summary, told),
            site=site,
            tab_id=tab_id,
            tab_title=title,
            grantable=not leaves_for_unknown,
        )
        facts = TabFacts.from_wire(tab) if tab is not None and isinstance(tab.get("id"), int) else None
        return Prepared(arguments, question, tab_id, bound, creates_tab, frame, facts)

    def _frame(self, tab_id: int | None, parsed: BrowserDomArgs, tab_site: str | None) -> FrameSite | None:
        """The one child frame the action's elements are in, if any; elements in frames of two sites (or in
        the page and a frame of another site) are refused, since one question names one site."""
        if tab_id is None:
            return None
        found = [self._tabs.frame_of(tab_id, ref) if ref is not None else None for ref in parsed.elements()]
        frames = {frame for frame in found if frame is not None}
        if any(frame.site is None for frame in frames):
            raise Refusal(
                "That element is in a frame that is not a web page: Tabgate acts in web pages.", failed=True
            )
        sites = {frame.site if frame is not None else tab_site for frame in found}
        if len(sites) > 1 or len(frames) > 1:
            raise Refusal(
                "Those elements are in different frames (or in the page and a frame of another site): act in "
                "one frame per call, so the person is asked for that frame's site.",
                failed=True,
            )
        return next(iter(frames), None)

    def _prepare_other(self, agent: AgentState, tool: dict[str, Any], arguments: dict[str, Any]) -> Prepared:
        name = tool["name"]
        action = action_of(arguments)
        if not needs_yes(tool, "agent"):
            return Prepared(arguments, None, None, None)
        if self._paused():
            raise Refusal(f"Tabgate refused {name}: {PAUSED}.")
        scope = f"mcp tool {name}" if tool.get("source") == "mcp" else name
        words = summarize(name, action, arguments, mcp=tool.get("source") == "mcp")
        question = question_of(agent, name, action, scope, words, words)
        return Prepared(arguments, question, None, None)
