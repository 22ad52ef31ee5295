"""The person's controls over agents (contract §8.1): the agents list, sharing a tab, stopping, pausing,
trusting and forgetting an agent, and answering its questions; the popup and the options page send these
messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agents.agent_tabs import AgentTabs
from core.agents.call_checks import PAUSED
from core.agents.identity import AgentBook, AgentIdentity, AgentState
from core.agents.tool_service import ToolService
from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.outcome import Outcome
from core.calls.tab_scope import site_of
from core.consent.board import AnswerOutcome, ConsentBoard, Decision
from core.messages.runtime_messages import (
    Agents,
    AgentsForget,
    AgentsPause,
    AgentsShare,
    AgentsStop,
    AgentsTrust,
    ApprovalAnswer,
    Approvals,
)

type Answer = dict[str, Any]

STOPPED = "stopped by the person"
UNSHARED = "the person stopped sharing that tab"


class AgentControls:
    def __init__(
        self,
        book: AgentBook,
        consent: ConsentBoard,
        tabs: AgentTabs,
        service: ToolService,
        changed: Callable[[], None],
    ) -> None:
        self._book = book
        self._consent = consent
        self._tabs = tabs
        self._service = service  # the config, where trust is kept
        self._changed = changed  # the popup hears that the agents changed

    @property
    def paused(self) -> bool:
        """Every acting call is refused while set (core/agents/call_checks.py), a held one waits
        (core/consent/board.py)
        and one on its way stops before the page (core/consent/acting_gate.py)."""
        return self._consent.paused

    async def agents(self, message: Agents) -> Answer:
        """Every agent as the popup shows it; with `activeTabId`, how each stands to that tab (`activeTab`:
        "own", "shared" or "none": what *Share this tab with …* offers)."""
        active = message.activeTabId
        trusted = await self._trusted()
        looked_up = await self._tabs.all()
        open_tabs = looked_up or {}
        agents = []
        for agent in self._book.all():
            for gone in agent.tabs() - set(open_tabs) if looked_up is not None else ():
                self._book.tab_removed(gone)  # closed while no event reached Python
            wire = {
                "id": agent.id,
                "name": agent.identity.name,
                "version": agent.identity.version,
                "executable": agent.identity.executable,
                "program": agent.identity.program,
                "label": agent.label,
                "connected": bool(agent.sessions),
                "calls": agent.calls,
                "trusted": agent.identity.trusted_by(trusted),
                "trustEntry": agent.identity.trust_entry,
                "notTrustable": agent.identity.not_trustable,
                "grants": self._consent.grants_of(agent.id),
                "tabs": [_tab(agent, tab_id, open_tabs.get(tab_id)) for tab_id in sorted(agent.tabs())],
                "running": [
                    call.to_wire(open_tabs.get(call.tab_id or -1)) for call in agent.running.values()
                ],
                "pending": self._consent.pending(agent.id),
            }
            if active is not None:
                wire["activeTab"] = (
                    "own" if active in agent.own else "shared" if active in agent.shared else "none"
                )
            agents.append(wire)
        return {"paused": self.paused, "agents": agents}

    async def share(self, params: AgentsShare) -> Answer:
        agent = self._book.get(params.id)
        if agent is None:
            raise _no_agent(params.id)
        if params.shared:
            agent.shared.add(params.tabId)
        else:
            agent.shared.discard(params.tabId)
            if params.tabId not in agent.own:
                if agent.last_tab == params.tabId:
                    agent.last_tab = None
                # The tab is the person's again: the agent's calls in it stop (a command list sends nothing
                # more) and its questions about it are withdrawn.
                agent.cancel_running(UNSHARED, outcome=Outcome.STOPPED, tab_id=params.tabId)
                self._consent.withdraw(UNSHARED, agent_id=agent.id, tab_id=params.tabId)
        self._changed()
        return {"ok": True}

    async def stop(self, message: AgentsStop) -> Answer:
        agent = self._book.get(message.id)
        if agent is None:
            raise _no_agent(message.id)
        stopped = agent.cancel_running(STOPPED, outcome=Outcome.STOPPED)
        stopped += self._consent.withdraw(STOPPED, agent_id=agent.id)
        self._changed()
        return {"stopped": stopped}

    async def pause(self, message: AgentsPause) -> Answer:
        self._consent.set_paused(message.paused)
        if message.paused:  # an acting call already running stops now, its command list included
            for agent in self._book.all():
                agent.cancel_running(PAUSED, outcome=Outcome.DENIED, acting_only=True)
        self._changed()
        return {"paused": self.paused}

    async def forget(self, message: AgentsForget) -> Answer:
        """Its grants and its trust go; the answer carries the config for the worker to store."""
        agent = self._book.get(message.id)
        if agent is None:
            raise _no_agent(message.id)
        self._consent.forget(agent.id)
        return await self._set_trust(agent.identity, trusted=False)

    async def trust(self, message: AgentsTrust) -> Answer:
        """The person's *Act without asking*: the entry that trusts this agent's program goes in or out of
        `gatewayTrusted` (an interpreter alone has none: refused, saying why); the answer carries the config
        for the worker to store."""
        agent = self._book.get(message.id)
        if agent is None:
            raise _no_agent(message.id)
        if message.trusted and agent.identity.trust_entry is None:
            raise McpRequestError(
                McpErrorCode.INVALID_PARAMS, agent.identity.not_trustable or "not trustable"
            )
        return await self._set_trust(agent.identity, trusted=message.trusted)

    async def _set_trust(self, identity: AgentIdentity, *, trusted: bool) -> Answer:
        entry = identity.trust_entry
        others = [e for e in await self._trusted() if e != entry]
        config = await self._service.set_config({"gatewayTrusted": [*others, entry] if trusted else others})
        self._changed()
        return {"ok": True, "config": config}

    async def approvals(self, message: Approvals) -> Answer:
        return self._consent.listed()

    async def answer(self, message: ApprovalAnswer) -> Answer:
        decision, approval_id = Decision(message.decision), message.id
        outcome = self._consent.answer(approval_id, decision)
        if outcome is AnswerOutcome.WITHDRAWN:
            raise McpRequestError(
                McpErrorCode.SERVER_UNAVAILABLE,
                f"approval {approval_id!r} was withdrawn (its agent is gone); nothing was run",
            )
        if outcome is AnswerOutcome.UNKNOWN:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, f"no pending approval {approval_id!r}")
        return {"ok": True}

    async def _trusted(self) -> list[object]:
        """The programs the person trusts to act unasked, as the config holds them (paths and
        `{executable, script}` objects)."""
        trusted: list[object] = self._service.config().get("gatewayTrusted", [])
        return trusted


def _tab(agent: AgentState, tab_id: int, tab: dict[str, Any] | None) -> dict[str, Any]:
    url = str(tab.get("url", "")) if tab is not None else ""
    return {
        "tabId": tab_id,
        "title": str(tab.get("title", "")) if tab is not None else "",
        "url": url,
        "site": site_of(url) or "",  # none for about:blank and the browser's own pages
        "shared": tab_id in agent.shared and tab_id not in agent.own,
    }


def _no_agent(agent_id: object) -> McpRequestError:
    return McpRequestError(McpErrorCode.INVALID_PARAMS, f"no agent {agent_id!r}")
