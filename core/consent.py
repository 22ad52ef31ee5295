"""Consent for calls agents make through the gateway (contract §8): one policy for every caller.

Reading runs at once (a site the user did not grant is refused by the browser tools themselves). Acting
asks the person once per agent and site — or agent and MCP tool — per gateway session: *Allow once*, *Allow
for this session* or *Deny*; a request nobody answers in time is denied. An agent the person marked "act
without asking" is never asked.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

type Emit = Callable[[dict[str, Any]], None]

# (tool, action) pairs that only read; every other action of a browser tool acts. `None`: any action.
READING: Mapping[str, frozenset[str] | None] = {
    "browser_tab": frozenset({"query"}),
    "browser_page": None,
    "browser_screenshot": None,
    "browser_devtools": None,
    "browser_storage": frozenset({"get", "keys"}),
    "browser_navigation": frozenset({"current_url", "wait_for_load"}),
    "update_plan": None,
    "list_mcp_resources": None,
    "list_mcp_resource_templates": None,
    "read_mcp_resource": None,
}
SUMMARY_ARGUMENTS = ("url", "ref", "selector", "key", "text", "values", "paths", "checked", "accept")
MAX_SUMMARY_VALUE = 60


class Decision(StrEnum):
    ONCE = "once"
    SESSION = "session"
    DENY = "deny"


class ConsentRefused(Exception):
    """The call may not run; the message says why, for the agent."""


@dataclass(frozen=True, slots=True)
class Intent:
    """What a call wants to do: read, or act on a site or with an MCP tool (its `scope`)."""

    tool: str
    action: str | None
    acts: bool
    scope: str | None  # "https://site" or "mcp tool <name>": what a session grant covers
    summary: str


def site_of(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def summarize(tool: str, action: str | None, arguments: Mapping[str, Any]) -> str:
    words = [tool if action is None else f"{tool} {action}"]
    for key in SUMMARY_ARGUMENTS:
        if key in arguments:
            value = str(arguments[key])
            if len(value) > MAX_SUMMARY_VALUE:
                value = value[: MAX_SUMMARY_VALUE - 1] + "…"
            words.append(f"{key}={value}")
    return " ".join(words)


def acts(tool: str, action: str | None, *, mcp_read_only: bool | None) -> bool:
    if mcp_read_only is not None:
        return not mcp_read_only
    if tool not in READING:
        return True
    reading = READING[tool]
    return reading is not None and action not in reading


@dataclass
class Pending:
    id: str
    session: str
    client: str
    intent: Intent
    site: str | None
    requested_at: float
    answer: asyncio.Future[Decision]

    def to_wire(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": self.id,
            "client": self.client,
            "tool": self.intent.tool,
            "summary": self.intent.summary,
            "requestedAt": round(self.requested_at * 1000),
        }
        if self.intent.action is not None:
            entry["action"] = self.intent.action
        if self.site is not None:
            entry["site"] = self.site
        return entry


@dataclass
class ConsentBoard:
    emit: Emit
    _pending: dict[str, Pending] = field(default_factory=dict)
    _grants: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # session → {(client, scope)}
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def pending(self) -> list[dict[str, Any]]:
        return [entry.to_wire() for entry in self._pending.values()]

    def granted(self, session: str, client: str, scope: str) -> bool:
        return (client, scope) in self._grants.get(session, set())

    def grants_of(self, client: str) -> list[str]:
        return sorted({scope for grants in self._grants.values() for who, scope in grants if who == client})

    async def ask(self, session: str, client: str, intent: Intent, *, timeout_s: float) -> None:
        """Wait for the person's answer; raises ConsentRefused when denied or unanswered in time."""
        scope = intent.scope or intent.summary
        if self.granted(session, client, scope):
            return
        entry = Pending(
            id=f"approval-{next(self._ids)}",
            session=session,
            client=client,
            intent=intent,
            site=scope if scope.startswith("http") else None,
            requested_at=time.time(),
            answer=asyncio.get_running_loop().create_future(),
        )
        self._pending[entry.id] = entry
        self._changed()
        try:
            decision = await asyncio.wait_for(asyncio.shield(entry.answer), timeout_s)
        except TimeoutError:
            raise ConsentRefused(
                f"The user did not answer the request to {intent.summary} within {timeout_s:g} s, so it was "
                "denied. Ask the user to open the Tabgate popup and allow it, then try again."
            ) from None
        finally:
            self._pending.pop(entry.id, None)
            self._changed()
        if decision is Decision.DENY:
            raise ConsentRefused(f"The user denied the request to {intent.summary}.")
        if decision is Decision.SESSION:
            self._grants.setdefault(session, set()).add((client, scope))

    def answer(self, approval_id: str, decision: Decision) -> bool:
        entry = self._pending.get(approval_id)
        if entry is None or entry.answer.done():
            return False
        entry.answer.set_result(decision)
        return True

    def end_session(self, session: str) -> None:
        """An agent disconnected: its grants end and its open requests are denied."""
        self._grants.pop(session, None)
        for entry in list(self._pending.values()):
            if entry.session == session and not entry.answer.done():
                entry.answer.set_result(Decision.DENY)

    def _changed(self) -> None:
        self.emit({"type": "approval", "pending": self.pending()})
