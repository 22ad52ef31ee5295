"""Who an agent is and which tabs are its own (contract §8.1, interface A).

An agent is its program (the executable the OS reports for the process that started `tabgate-host mcp`) plus
the `clientInfo` name it sent: another program using a known name is another agent. Its tabs are the ones it
opened (kept in a tab group titled with its name), the ones opened from those, and the ones the person shared
with it; it sees and acts on nothing else.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from core.browser.target import site_of
from core.plain_words import call_words, placed


def is_absolute(path: str) -> bool:
    """A POSIX or Windows absolute path (the executable comes from another OS than this interpreter's)."""
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


class AgentIdentity(BaseModel):
    """`Agent` of interface A, as the host sends it with every gateway request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: StrictStr = Field(min_length=1, max_length=100)
    version: StrictStr = Field(default="", max_length=40)
    executable: StrictStr = Field(min_length=1, max_length=4096)

    @field_validator("executable")
    @classmethod
    def _absolute(cls, executable: str) -> str:
        if not is_absolute(executable):
            raise ValueError(f"the agent's executable must be an absolute path, got {executable!r}")
        return executable

    @property
    def id(self) -> str:
        key = f"{self.executable}\0{self.name}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(key).hexdigest()[:16]


@dataclass
class RunningCall:
    call_id: str
    session: str
    tool: str
    action: str | None
    site: str | None
    started_at: float
    task: asyncio.Task[Any]
    asking: bool = False  # waiting for the person: ended by withdrawing its question, not by cancelling
    stopped: str | None = None  # why it was cancelled
    # Known once its checks passed: the completed arguments, the tab it works on, whether an MCP tool.
    arguments: dict[str, Any] = field(default_factory=dict)
    tab_id: int | None = None
    mcp: bool = False

    def to_wire(self, tab: Mapping[str, Any] | None) -> dict[str, Any]:
        """What the popup shows of it; `tab`: its tab as the person sees it (title and URL), if known."""
        site = self.site or (site_of(str(tab.get("url", ""))) if tab is not None else None)
        where = (
            (self.tab_id, str(tab.get("title", "")) if tab is not None else None)
            if self.tab_id is not None
            else None
        )
        wire: dict[str, Any] = {
            "callId": self.call_id,
            "tool": self.tool,
            "startedAt": round(self.started_at * 1000),
            "summary": placed(call_words(self.tool, self.action, self.arguments, mcp=self.mcp), where, site),
            "waiting": self.asking,
        }
        if self.action is not None:
            wire["action"] = self.action
        if site is not None:
            wire["site"] = site
        if self.tab_id is not None:
            wire["tabId"] = self.tab_id
        return wire


@dataclass
class AgentState:
    identity: AgentIdentity
    sessions: set[str] = field(default_factory=set)
    own: set[int] = field(default_factory=set)  # opened by it, or from its tabs
    shared: set[int] = field(default_factory=set)  # shared by the person
    last_tab: int | None = None
    group: int | None = None
    running: dict[str, RunningCall] = field(default_factory=dict)
    calls: int = 0  # dispatched since the core started

    @property
    def id(self) -> str:
        return self.identity.id

    @property
    def label(self) -> str:
        return f"{self.identity.name} — {self.identity.executable}"

    def tabs(self) -> set[int]:
        return self.own | self.shared

    def default_tab(self) -> int | None:
        return self.last_tab if self.last_tab in self.tabs() else None

    def cancel_running(self, reason: str, session: str | None = None) -> int:
        """Cancel the calls past their question (those still asking end with their withdrawn question)."""
        calls = [
            call
            for call in self.running.values()
            if (session is None or call.session == session) and not call.asking
        ]
        for call in calls:
            call.stopped = reason
            call.task.cancel()
        return len(calls)


class TabGroups(Protocol):
    """chrome.tabs / chrome.tabGroups calls the service worker runs for the gateway (BrowserToolError)."""

    async def create(self) -> int:
        """A new background tab (about:blank); its id."""
        ...

    async def add(self, tab_id: int, title: str, group: int | None) -> int:
        """Put a tab in `group` (or a new group titled `title`); the group's id."""
        ...


class AgentBook:
    """Every agent seen since the core started, by id; their tabs outlive their sessions."""

    def __init__(self) -> None:
        self._agents: dict[str, AgentState] = {}

    def seen(self, identity: AgentIdentity, session: str) -> AgentState:
        agent = self._agents.get(identity.id)
        if agent is None:
            agent = self._agents[identity.id] = AgentState(identity)
        agent.identity = identity  # the version may change between sessions
        agent.sessions.add(session)
        return agent

    def get(self, agent_id: str) -> AgentState | None:
        return self._agents.get(agent_id)

    def all(self) -> list[AgentState]:
        return sorted(self._agents.values(), key=lambda a: (a.identity.name, a.identity.executable))

    def owner_of(self, tab_id: int) -> AgentState | None:
        """The agent that opened this tab (or the tab it came from)."""
        return next((agent for agent in self._agents.values() if tab_id in agent.own), None)

    def tab_created(self, tab_id: int, opener: int | None) -> AgentState | None:
        """A tab opened from an agent's own tab is that agent's too; the agent, if any."""
        owner = self.owner_of(opener) if opener is not None else None
        if owner is not None:
            owner.own.add(tab_id)
        return owner

    def tab_removed(self, tab_id: int) -> None:
        for agent in self._agents.values():
            agent.own.discard(tab_id)
            agent.shared.discard(tab_id)
            if agent.last_tab == tab_id:
                agent.last_tab = None

    def end_session(self, session: str) -> None:
        for agent in self._agents.values():
            agent.sessions.discard(session)

    def end_all_sessions(self) -> None:
        for agent in self._agents.values():
            agent.sessions.clear()
