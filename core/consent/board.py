"""Asking the person before an agent acts (contract §8, §8.1): one board of questions for every caller.

A question names the agent (name and executable), the action, the tab (id and title) and the site; its scope
is what *Allow for this session* covers: the site the action lands on (a tab-moving action's destination) or
the MCP tool. *Allow once*, *Allow for this session*, *Deny*; a question nobody answers in time is denied.
A question whose gateway session ended is withdrawn: it is kept a while to say so, and answering it runs
nothing.

The person's controls hold (contract §8.2): at most `WAITING_PER_AGENT` questions wait per agent, a further
one is refused at once. While agents are paused, an answer to a question is recorded but nothing runs: an
allowed call is held, shown as paused, and runs when the person resumes agents (its target still re-checked
where it executes), unless the person denies it meanwhile, its agent is stopped or gone, or the pause
outlasts the approval time limit counted from the answer. Waiting questions are listed grouped by agent.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from core.messages.event_messages import Approval

type Emit = Callable[[dict[str, Any]], None]

# How many withdrawn questions the popup can still be shown (and answered with "withdrawn"), and how long.
KEPT_WITHDRAWN = 20
WITHDRAWN_SHOWN_S = 300
# Questions one agent may have waiting for the person at once (held by a pause included).
WAITING_PER_AGENT = 4
# Up to this many waiting questions the popup shows each one; more are shown as one folded row per agent.
SHOWN_UNFOLDED = 4


class Decision(StrEnum):
    ONCE = "once"
    SESSION = "session"
    DENY = "deny"


class ConsentRefused(Exception):
    """The call may not run; the message says why, for the agent."""


class ConsentDenied(ConsentRefused):
    """The person said no, or did not answer in time."""


class ConsentWithdrawn(ConsentRefused):
    """The question was withdrawn: its caller is gone or the person stopped the agent."""


class TooManyWaiting(ConsentRefused):
    """The agent already has `WAITING_PER_AGENT` questions waiting: refused without asking."""


class PauseOutlasted(ConsentRefused):
    """Allowed while agents were paused, and still paused when the approval time limit ran out."""


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """How a question ends when its caller is gone: nobody is left to act for."""

    reason: str


class AnswerOutcome(StrEnum):
    TAKEN = "taken"
    UNKNOWN = "unknown"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True, slots=True)
class Question:
    """What the person is asked: who wants to do what, where; `scope` is what a session grant covers."""

    agent_id: str
    agent: str
    executable: str
    label: str  # `name — executable`, as the popup names the agent
    tool: str
    action: str | None
    scope: str
    summary: str
    # The same words as the agent is told them (denied, unanswered, withdrawn): without the tab's title, which
    # is the page's text and goes to an agent only inside a fenced block (contract §7.1).
    told: str
    site: str | None = None
    tab_id: int | None = None
    tab_title: str | None = None
    # False where the destination is unknown when asking (back, forward): each call is asked on its own, so
    # *Allow for this session* on one site never lets the tab go back to another.
    grantable: bool = True

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "agentId": self.agent_id,
            "agent": self.agent,
            "executable": self.executable,
            "label": self.label,
            "tool": self.tool,
            "summary": self.summary,
        }
        if self.action is not None:
            wire["action"] = self.action
        if self.site is not None:
            wire["site"] = self.site
        if self.tab_id is not None:
            wire["tab"] = {"tabId": self.tab_id, "title": self.tab_title or ""}
        if not self.grantable:
            wire["sessionAllowed"] = False
        return wire


@dataclass
class Pending:
    id: str
    session: str
    question: Question
    requested_at: float
    answer: asyncio.Future[Decision | Withdrawal]
    withdrawn: str | None = None
    withdrawn_at: float = 0.0
    # Allowed while agents were paused: the decision, and what ends the hold (resumed, denied or withdrawn).
    held: Decision | None = None
    release: asyncio.Future[Decision | Withdrawal] | None = None

    def to_wire(self, paused: bool = False) -> dict[str, Any]:
        wire = {"id": self.id, **self.question.to_wire(), "requestedAt": round(self.requested_at * 1000)}
        if self.withdrawn is not None:
            wire["withdrawn"] = self.withdrawn
            wire["withdrawnAt"] = round(self.withdrawn_at * 1000)
            return wire
        if paused:
            wire["paused"] = True  # nothing it asks for runs until the person resumes agents
        if self.held is not None:
            wire["answered"] = self.held.value
        else:
            # The Chrome notification raised while no popup is open (contract §9), worded here.
            wire["notice"] = {
                "title": f"{self.question.agent} is waiting for your answer",
                "message": f"Allow it to {self.question.summary}?",
                "contextMessage": self.question.executable,
            }
        return wire


@dataclass
class ConsentBoard:
    emit: Emit
    _pending: dict[str, Pending] = field(default_factory=dict)  # unanswered, or held by the pause
    _withdrawn: deque[Pending] = field(default_factory=lambda: deque(maxlen=KEPT_WITHDRAWN))
    _grants: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # session → {(agent id, scope)}
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    paused: bool = False  # the person's *Pause all agents*

    def pending(self, agent_id: str | None = None) -> list[dict[str, Any]]:
        """The questions waiting for the person's answer (the badge counts them)."""
        return [
            entry.to_wire(self.paused)
            for entry in self._pending.values()
            if entry.held is None and (agent_id is None or entry.question.agent_id == agent_id)
        ]

    def held(self) -> list[dict[str, Any]]:
        """The questions the person allowed while agents were paused: they run when agents resume."""
        return [entry.to_wire(self.paused) for entry in self._pending.values() if entry.held is not None]

    def groups(self) -> list[dict[str, Any]]:
        """The waiting questions by agent, in the order each agent first asked: what the popup groups."""
        groups: dict[str, dict[str, Any]] = {}
        for entry in self._pending.values():
            question = entry.question
            group = groups.setdefault(
                question.agent_id,
                {
                    "agentId": question.agent_id,
                    "agent": question.agent,
                    "executable": question.executable,
                    "label": question.label,
                    "count": 0,
                    "unanswered": 0,
                    "approvals": [],
                },
            )
            group["count"] += 1
            group["unanswered"] += entry.held is None
            group["approvals"].append(entry.id)
        unfolded = len(self._pending) <= SHOWN_UNFOLDED
        return [group | {"expanded": unfolded} for group in groups.values()]

    def listed(self) -> dict[str, Any]:
        """Every question the popup shows: the `approvals` answer and the `approval` event."""
        return {
            "pending": self.pending(),
            "held": self.held(),
            "withdrawn": self.withdrawn(),
            "groups": self.groups(),
            "paused": self.paused,
        }

    def withdrawn(self) -> list[dict[str, Any]]:
        """The questions withdrawn in the last minutes, for the popup to show as withdrawn."""
        since = time.time() - WITHDRAWN_SHOWN_S
        return [entry.to_wire() for entry in self._withdrawn if entry.withdrawn_at >= since]

    def granted(self, session: str, question: Question) -> bool:
        return question.grantable and (question.agent_id, question.scope) in self._grants.get(session, set())

    async def ask(self, session: str, question: Question, *, timeout_s: float) -> None:
        """Wait for the person's answer (and, when allowed while paused, for the pause to end);
        ConsentRefused when denied, withdrawn, unanswered in time, or too many wait already."""
        if self.granted(session, question):
            return
        waiting = sum(entry.question.agent_id == question.agent_id for entry in self._pending.values())
        if waiting >= WAITING_PER_AGENT:
            raise TooManyWaiting(
                f"{WAITING_PER_AGENT} questions from this agent are already waiting for the person, so the "
                f"request to {question.told} was refused without asking. Wait for the person to answer "
                "those (or for them to time out), then try again."
            )
        entry = Pending(
            id=f"approval-{next(self._ids)}",
            session=session,
            question=question,
            requested_at=time.time(),
            answer=asyncio.get_running_loop().create_future(),
        )
        self._pending[entry.id] = entry
        self._changed()
        try:
            decision = await self._decision(entry, timeout_s)
        finally:
            if self._pending.pop(entry.id, None) is not None:
                self._changed()
        if isinstance(decision, Withdrawal):
            raise ConsentWithdrawn(f"The request to {question.told} was withdrawn: {decision.reason}.")
        if decision is Decision.DENY:
            raise ConsentDenied(f"The user denied the request to {question.told}.")
        if decision is Decision.SESSION and question.grantable:
            self._grants.setdefault(session, set()).add((question.agent_id, question.scope))

    async def _decision(self, entry: Pending, timeout_s: float) -> Decision | Withdrawal:
        """The person's answer; one that allows while agents are paused is held until they resume."""
        try:
            decision = await asyncio.wait_for(asyncio.shield(entry.answer), timeout_s)
        except TimeoutError:
            raise ConsentDenied(
                f"The user did not answer the request to {entry.question.told} within {timeout_s:g} s, so "
                "it was denied. Ask the user to open the Tabgate popup and allow it, then try again."
            ) from None
        if decision is Decision.DENY or isinstance(decision, Withdrawal) or not self.paused:
            return decision
        entry.held = decision
        entry.release = asyncio.get_running_loop().create_future()
        self._changed()
        try:
            return await asyncio.wait_for(asyncio.shield(entry.release), timeout_s)
        except TimeoutError:
            raise PauseOutlasted(
                f"The user allowed the request to {entry.question.told} while agents were paused, and they "
                f"were still paused {timeout_s:g} s later, so it did not run. Ask the user to resume agents "
                "in the Tabgate popup, then try again."
            ) from None

    def answer(self, approval_id: str, decision: Decision) -> AnswerOutcome:
        """Record the person's answer. A held question (allowed while paused) can still be denied."""
        entry = self._pending.get(approval_id)
        if entry is not None and entry.release is not None:
            if decision is Decision.DENY and not entry.release.done():
                entry.release.set_result(decision)
            return AnswerOutcome.TAKEN
        if entry is None or entry.answer.done():
            if any(gone.id == approval_id for gone in self._withdrawn):
                return AnswerOutcome.WITHDRAWN
            return AnswerOutcome.UNKNOWN
        entry.answer.set_result(decision)
        return AnswerOutcome.TAKEN

    def set_paused(self, paused: bool) -> None:
        """The person paused or resumed agents; resuming lets the held calls run."""
        self.paused = paused
        if not paused:
            for entry in self._pending.values():
                if entry.held is not None and entry.release is not None and not entry.release.done():
                    entry.release.set_result(entry.held)
        self._changed()

    def withdraw(
        self,
        reason: str,
        *,
        session: str | None = None,
        agent_id: str | None = None,
        tab_id: int | None = None,
    ) -> int:
        """Withdraw the open questions of one session, one agent (about one tab), or (none given) all."""
        count = 0
        for entry in list(self._pending.values()):
            if session is not None and entry.session != session:
                continue
            if agent_id is not None and entry.question.agent_id != agent_id:
                continue
            if tab_id is not None and entry.question.tab_id != tab_id:
                continue
            # An open question waits for its answer, a held one for the pause to end.
            waiting = entry.release if entry.release is not None else entry.answer
            if waiting.done():
                continue
            entry.withdrawn = reason
            entry.withdrawn_at = time.time()
            waiting.set_result(Withdrawal(reason))
            self._pending.pop(entry.id)
            self._withdrawn.append(entry)
            count += 1
        if count:
            self._changed()
        return count

    def end_session(self, session: str, reason: str) -> None:
        """The agent's session ended: its grants end and its open questions are withdrawn."""
        self._grants.pop(session, None)
        self.withdraw(reason, session=session)

    def end_all(self, reason: str) -> None:
        self._grants.clear()
        self.withdraw(reason)

    def forget(self, agent_id: str) -> None:
        for grants in self._grants.values():
            grants -= {grant for grant in grants if grant[0] == agent_id}

    def grants_of(self, agent_id: str) -> list[str]:
        return sorted({scope for grants in self._grants.values() for who, scope in grants if who == agent_id})

    def _changed(self) -> None:
        self.emit(Approval(**self.listed()).to_wire())
