"""Who an agent is and which tabs are its own (contract §8.1, §8.2, interface A).

An agent is its program (the executable the OS reports for the process that started `tabgate-host mcp`, and
for an interpreter what it runs: `Runs`) plus the `clientInfo` name it sent, cleaned (`agent_names.py`):
another program using a known name is another agent. Trust binds to the program and never covers a bare
interpreter. Its tabs are the ones it opened (kept in a tab group titled with its name), the ones opened from
those, and the ones the person shared with it; it sees and acts on nothing else.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from core.agents.agent_names import MAX_NAME, MAX_VERSION, clean_name, clean_version
from core.agents.plain_words import call_words, not_trustable_words, placed, program_words
from core.calls.outcome import Outcome
from core.calls.tab_scope import site_of

# What an interpreter runs: a script file (absolute, links resolved), a module or class found on a search
# path, code on its command line, nothing named (a prompt, stdin), a script named relative to a working
# folder that may have changed since, or a command line whose options Tabgate does not read. Only `script` is
# ever trusted.
type RunsKind = Literal["script", "module", "inline", "none", "relative", "unread"]


def is_absolute(path: str) -> bool:
    """A POSIX or Windows absolute path (the executable comes from another OS than this interpreter's)."""
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


class Runs(BaseModel):
    """What an interpreter agent runs, read by the host from its command line (interface A)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RunsKind
    target: StrictStr = Field(default="", max_length=4096)  # the script's path, module, or unread option


class TrustedScript(BaseModel):
    """A `gatewayTrusted` entry for an interpreter agent: the interpreter and the script it runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    executable: StrictStr = Field(min_length=1, max_length=4096)
    script: StrictStr = Field(min_length=1, max_length=4096)

    @field_validator("executable", "script")
    @classmethod
    def _absolute(cls, path: str) -> str:
        if not is_absolute(path):
            raise ValueError(f"a trusted script and its interpreter are absolute paths; {path!r} is not")
        return path


type TrustEntry = str | dict[str, str]  # as `gatewayTrusted` holds it on the wire: a path, or a TrustedScript


class AgentIdentity(BaseModel):
    """`Agent` of interface A, as the host sends it with each gateway request (`runs`: interpreters only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: StrictStr = Field(min_length=1, max_length=MAX_NAME)
    version: StrictStr = Field(default="", max_length=MAX_VERSION)
    executable: StrictStr = Field(min_length=1, max_length=4096)
    runs: Runs | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _clean_name(cls, name: object) -> object:
        return clean_name(name) if isinstance(name, str) else name

    @field_validator("version", mode="before")
    @classmethod
    def _clean_version(cls, version: object) -> object:
        return clean_version(version) if isinstance(version, str) else version

    @field_validator("executable")
    @classmethod
    def _absolute(cls, executable: str) -> str:
        if not is_absolute(executable):
            raise ValueError(f"the agent's executable must be an absolute path, got {executable!r}")
        return executable

    @property
    def id(self) -> str:
        program = (
            self.executable
            if self.runs is None
            else f"{self.executable}\0{self.runs.kind}\0{self.runs.target}"
        )
        key = f"{program}\0{self.name}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(key).hexdigest()[:16]

    @property
    def program(self) -> str:
        """The program as the person reads it: the executable, and for an interpreter what it runs."""
        if self.runs is None:
            return program_words(self.executable, None, "")
        return program_words(self.executable, self.runs.kind, self.runs.target)

    @property
    def trust_entry(self) -> TrustEntry | None:
        """What `gatewayTrusted` holds to trust this program; None when it cannot be trusted."""
        if self.runs is None:
            return self.executable
        if self.runs.kind == "script":
            return TrustedScript(executable=self.executable, script=self.runs.target).model_dump()
        return None

    @property
    def not_trustable(self) -> str | None:
        """Why *act without asking* cannot be given to this agent, in the person's words; None when it can."""
        return (
            None
            if self.runs is None
            else not_trustable_words(self.executable, self.runs.kind, self.runs.target)
        )

    def trusted_by(self, entries: Sequence[object]) -> bool:
        """Whether `gatewayTrusted` (its wire form) trusts this program."""
        entry = self.trust_entry
        return entry is not None and entry in entries


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
    acting: bool = False  # past its checks as an acting call: the person's pause stops it too
    stopped: str | None = None  # why it was cancelled
    stopped_as: Outcome = Outcome.WITHDRAWN  # how: its agent went away, or the person stopped it
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
        """The program first, then the name it gave itself (which cannot look like a path: agent_names.py)."""
        return f"{self.identity.program} · “{self.identity.name}”"

    def tabs(self) -> set[int]:
        return self.own | self.shared

    def default_tab(self) -> int | None:
        return self.last_tab if self.last_tab in self.tabs() else None

    def cancel_running(
        self,
        reason: str,
        session: str | None = None,
        *,
        outcome: Outcome = Outcome.WITHDRAWN,
        acting_only: bool = False,
        tab_id: int | None = None,
    ) -> int:
        """Cancel the calls past their question (those still asking end with their withdrawn question), or
        only the acting ones, or those in one tab; each ends with `outcome`."""
        calls = [
            call
            for call in self.running.values()
            if (session is None or call.session == session)
            and not call.asking
            and (call.acting or not acting_only)
            and (tab_id is None or call.tab_id == tab_id)
        ]
        for call in calls:
            call.stopped, call.stopped_as = reason, outcome
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
