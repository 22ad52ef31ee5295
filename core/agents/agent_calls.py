"""The extension's side of the agent gateway (contract §8, §8.1, §9): what agents see and call, under consent.

The host relays each agent's `tools/list` and `tools/call` as `gateway/tools` and `gateway/call`, naming the
gateway session and the agent (interface A). A call is checked before anyone is asked (its arguments, its
tab: core/agents/call_checks.py), asked about when it acts, then dispatched in the session's own turn with
the
`target` the browser re-checks where the action executes (interface C). The agent is answered with an MCP
`CallToolResult` built here (core/agents/call_result.py); the service worker records `{answer, record}` in the
history. The agents' tabs are kept in core/agents/agent_tabs.py, the person's controls in
core/agents/agent_controls.py;
here, sessions end (closed, host gone, a new service worker).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from core.agents.agent_controls import AgentControls
from core.agents.agent_navigation import AgentNavigation, GuardFailed
from core.agents.agent_tabs import AgentTabs
from core.agents.call_checks import PAUSED, CallChecks, Refusal, action_of
from core.agents.call_result import AgentCallResult, from_dispatch
from core.agents.created_tab import as_loaded, first_load, without_url
from core.agents.gateway_messages import listed_tool
from core.agents.identity import AgentBook, AgentIdentity, AgentState, RunningCall, TabGroups
from core.agents.tool_service import ToolService
from core.calls.capabilities import BrowserCapability, McpErrorCode, McpRequestError
from core.calls.outcome import Outcome
from core.calls.validation import format_validation_error
from core.consent.acting_gate import Stop, acting
from core.consent.board import ConsentBoard, ConsentRefused, ConsentWithdrawn
from core.host_link.app_meta import offered_to_agents
from core.messages import runtime_messages as m
from core.messages.emit import Emit
from core.messages.event_messages import (
    AgentsActivityStore,
    AgentsChanged,
    GatewayChanged,
    GatewayStarted,
    GatewayState,
)
from core.messages.runtime_messages import Route, RuntimeMessage, parse_runtime_message, routed
from core.records.activity import ActivityLog, make_entry
from core.records.history import record_for
from core.tools.tool_facts import RESOURCE_TOOLS

type Message = dict[str, Any]
type Answer = dict[str, Any]

GATEWAY_OFF = (
    "Tabgate's agent gateway is off: open Chrome with Tabgate and turn on *Let agents use Tabgate* "
    "in its popup."
)
# Messages after which the gateway switch or the tools agents see may differ.
CHANGES_TOOLS: frozenset[type[RuntimeMessage]] = frozenset(
    {m.ConfigLoad, m.ConfigSet, m.HostStateMessage, m.HostServers}
)


class _Withdrawn(Refusal):
    """A refusal because the call's question was withdrawn (its agent gone, or stopped by the person)."""


def _never() -> str | None:
    """A reading call: a pause does not stop it."""
    return None


class AgentGateway:
    def __init__(
        self,
        service: ToolService,
        browser: BrowserCapability | None,
        emit: Emit,
        groups: TabGroups | None = None,
    ) -> None:
        self._service = service
        self._emit = emit
        self.consent = ConsentBoard(emit)
        self._book = AgentBook()
        self.activity = ActivityLog()
        self._enabled: bool | None = None
        self._tabs = AgentTabs(self._book, browser, groups, self._agents_changed)
        self._controls = AgentControls(self._book, self.consent, self._tabs, service, self._agents_changed)
        self._checks = CallChecks(self._tabs, lambda: self._controls.paused)
        self._nav = AgentNavigation(self._book, self.consent, browser, self._config)
        self._routes: dict[type[RuntimeMessage], Route] = dict(
            [
                routed(m.GatewayTools, self._tools),
                routed(m.GatewayCall, self._call),
                routed(m.GatewayClosed, self._closed),
                routed(m.Approvals, self._controls.approvals),
                routed(m.ApprovalAnswer, self._controls.answer),
                routed(m.Agents, self._controls.agents),
                routed(m.GatewayAgents, self._controls.agents),
                routed(m.AgentsShare, self._controls.share),
                routed(m.AgentsStop, self._controls.stop),
                routed(m.AgentsPause, self._controls.pause),
                routed(m.AgentsForget, self._controls.forget),
                routed(m.AgentsTrust, self._controls.trust),
                routed(m.TabsCreated, self._tabs.created),
                routed(m.NavPaused, self._nav.paused),
                routed(m.TabsRemoved, self._tabs.removed),
                routed(m.WorkerHello, self._worker_hello),
                routed(m.AgentsActivity, self._activity),
                routed(m.AgentsActivityLoad, self._activity_load),
            ]
        )

    @property
    def routes(self) -> Mapping[type[RuntimeMessage], Route]:
        """The messages the gateway answers, by model."""
        return self._routes

    def handles(self, message: RuntimeMessage) -> bool:
        return type(message) in self._routes

    async def handle(self, message: Message | RuntimeMessage) -> Answer:
        try:
            parsed = message if isinstance(message, RuntimeMessage) else parse_runtime_message(message)
            return await self._routes[type(parsed)](parsed)
        except McpRequestError as error:
            return error.to_wire()

    async def after(self, message: RuntimeMessage) -> None:
        """After a service message: a host gone ends every session; the host hears of switch and tools."""
        kind = type(message)
        if isinstance(message, m.HostStateMessage) and message.connected is not True:
            # The native port died (the host exited, or this service worker stopped): every agent's session
            # went with it, and nobody is left to act for.
            self._end_all("the native host disconnected")
        if kind not in CHANGES_TOOLS:
            return
        config = await self._config()
        enabled = config.get("gateway") is True
        if enabled != self._enabled or kind is m.HostStateMessage:
            self._enabled = enabled
            self._emit(GatewayState(enabled=enabled).to_wire())
        if enabled:
            self._emit(GatewayChanged().to_wire())

    # -- what agents see ---------------------------------------------------------------------------------

    async def _config(self) -> Answer:
        return self._service.config()

    async def _visible_tools(self, config: Answer) -> dict[str, dict[str, Any]]:
        offered = await self._service.offered_tools()
        mcp = config.get("gatewayMcp") is True
        sources = {"builtin", "browser"} | ({"mcp"} if mcp else set())
        return {
            tool["name"]: tool
            for tool in offered
            if tool.get("source") in sources
            and (mcp or tool["name"] not in RESOURCE_TOOLS)
            and offered_to_agents(tool)
        }

    async def _tools(self, message: m.GatewayTools) -> Answer:
        config = await self._config()
        if config.get("gateway") is not True:
            return {"tools": []}
        try:
            identity = AgentIdentity.model_validate(message.agent)
        except ValidationError as error:
            return McpRequestError(
                McpErrorCode.INVALID_PARAMS, f"agent: {format_validation_error(error)}"
            ).to_wire()
        self._seen(identity, message.session)
        return {"tools": [listed_tool(tool) for tool in (await self._visible_tools(config)).values()]}

    # -- one call ----------------------------------------------------------------------------------------

    async def _call(self, message: m.GatewayCall) -> Answer:
        """`{answer: CallToolResult, record}`: the agent's answer and what the history keeps of the call."""
        call_id = str(message.callId or f"gateway:{uuid.uuid4().hex[:12]}")
        try:
            identity = AgentIdentity.model_validate(message.agent)
        except ValidationError as error:
            invalid = Refusal(f"invalid gateway call: agent: {format_validation_error(error)}").internal(
                call_id
            )
            return self._envelope(invalid | {"outcome": Outcome.REJECTED.value})
        agent = self._seen(identity, message.session)
        item = {
            "type": "function_call",
            "name": message.name,
            "arguments": json.dumps(message.arguments),
            "call_id": call_id,
        }
        self._emit(GatewayStarted(callId=call_id, name=message.name, item=item, caller=agent.label).to_wire())
        ends: dict[str, Any] = {}  # what _run learns: the outcome when refused, the tab it acted on
        # A stop cancels the task this call runs in, not a task of its own: in the browser each task's start
        # and end is a turn of the worker's event loop.
        task = asyncio.current_task()
        assert task is not None, "a gateway call runs in a task"
        running = RunningCall(
            call_id, message.session, message.name, action_of(message.arguments), None, time.time(), task
        )
        agent.running[call_id] = running
        try:
            internal = await self._run(agent, message, call_id, ends)
        except asyncio.CancelledError:
            # Only a stop's own cancellation ends in the call's answer; any other goes on.
            if running.stopped is None or task.uncancel() > 0:
                raise
            internal = Refusal(f"The call was stopped: {running.stopped}.").internal(call_id)
            ends["outcome"] = running.stopped_as
        finally:
            agent.running.pop(call_id, None)
        # What _run learnt of how it ended overrides the answer's own outcome; history, the activity log
        # and the agent's isError read the one result.
        internal |= {"outcome": ends.get("outcome", internal["outcome"])}
        self._record(agent, running, Outcome(internal["outcome"]), ends.get("tabId"))
        return self._envelope(internal)

    def _record(self, agent: AgentState, call: RunningCall, outcome: Outcome, tab_id: int | None) -> None:
        """One activity entry for a call that ended; the worker puts it first in the stored list and keeps
        as many entries as the log does."""
        entry = make_entry(
            call_id=call.call_id,
            at_s=call.started_at,
            ended_s=time.time(),
            agent_id=agent.id,
            agent=agent.label,
            tool=call.tool,
            action=call.action,
            site=call.site,
            tab_id=tab_id,
            outcome=outcome,
        )
        self.activity.add(entry)
        self._emit(AgentsActivityStore(entry=entry, keep=self.activity.count).to_wire())

    async def _activity(self, message: m.AgentsActivity) -> Answer:
        return {"entries": self.activity.entries(message.id, message.limit)}

    async def _activity_load(self, message: m.AgentsActivityLoad) -> Answer:
        """What the worker kept of an earlier core's log (after the Python document restarted)."""
        stored = message.entries
        self.activity.load(stored if isinstance(stored, list) else [])
        # The merged list replaces what the worker stores; each call after it sends only its entry.
        entries = self.activity.entries()
        self._emit(AgentsActivityStore(entries=entries, keep=len(entries)).to_wire())
        return {"ok": True}

    def _seen(self, identity: AgentIdentity, session: str) -> AgentState:
        """The agent of this request; the popup hears of a new agent or session (not of every call)."""
        known = self._book.get(identity.id)
        new = known is None or session not in known.sessions
        agent = self._book.seen(identity, session)
        if new:
            self._agents_changed()
        return agent

    def _envelope(self, internal: Answer) -> Answer:
        result: AgentCallResult = from_dispatch(internal)
        return {"answer": result.to_wire(), "record": record_for(internal)}

    async def _run(
        self, agent: AgentState, params: m.GatewayCall, call_id: str, ends: dict[str, Any]
    ) -> Answer:
        try:
            config = await self._config()
            if config.get("gateway") is not True:
                raise Refusal(GATEWAY_OFF)
            tool = (await self._visible_tools(config)).get(params.name)
            if tool is None:
                ends["outcome"] = Outcome.FAILED  # the agent's mistake, not a refusal
                raise Refusal(f"Tabgate offers no tool '{params.name}' to agents (list the tools again).")
            prepared = await self._checks.prepare(agent, tool, params.arguments)
            ends["tabId"] = prepared.tab_id
            running = agent.running.get(call_id)
            if running is not None:
                running.site, running.acting = (q.site, True) if (q := prepared.question) else (None, False)
                running.arguments, running.tab_id = prepared.arguments, prepared.tab_id
                running.mcp = tool.get("source") == "mcp"
            trusted = agent.identity.trusted_by(config.get("gatewayTrusted", []))
            question = prepared.question
            # Unless the person is asked now, the tab looked up for the question is still fresh.
            fresh = question is None or trusted or self.consent.granted(params.session, question)
            if question is not None and not trusted:
                if running is not None:
                    running.asking = True
                try:
                    await self.consent.ask(
                        params.session,
                        question,
                        timeout_s=float(config.get("approvalTimeoutSec", 120)),
                    )
                except ConsentWithdrawn as withdrawn:
                    raise _Withdrawn(str(withdrawn)) from None
                except ConsentRefused as refused:
                    raise Refusal(str(refused)) from None
                finally:
                    if running is not None:
                        running.asking = False
        except Refusal as refusal:
            if isinstance(refusal, _Withdrawn):
                ends["outcome"] = Outcome.WITHDRAWN
            return refusal.internal(call_id)
        # A tab the agent creates opens blank and is held before its first load (core/agents/created_tab.py).
        arguments, first = without_url(prepared.creates_tab, prepared.arguments)
        item = {
            "type": "function_call",
            "name": params.name,
            "arguments": json.dumps(arguments),
            "call_id": call_id,
        }
        target = prepared.target(agent, fresh=fresh)
        agent.calls += 1
        # An acting call approved before a pause stops at its next step to the page (consent/acting_gate.py).
        stop = self._stop_when_paused(params.name, ends) if prepared.question is not None else _never
        approved = prepared.question.site if prepared.question is not None else None
        with acting(stop), self._nav.acting(prepared.tab_id, params.session, approved):
            try:
                await self._nav.guard()  # before anything moves the agent's tab
            except GuardFailed as exc:  # never run unheld: the page could carry the call to another site
                return Refusal(f"{exc}. Nothing was done; try again.", failed=True).internal(call_id)
            answer = await self._service.dispatch(
                m.Dispatch(type=m.Dispatch.TYPE, item=item, turn=params.session, target=target)
            )
        if answer.get("success") is True:
            created = await self._tabs.used(agent, prepared, answer)
            self._nav.used(agent.last_tab)
            try:
                await self._nav.guard()
            except GuardFailed as exc:  # the created tab stays blank: its first load would go unheld
                if first is not None and created is not None:
                    return Refusal(f"{exc} (tab {created} stays blank)", failed=True).internal(call_id)
            if first is not None and created is not None:
                answer = await self._first_load(
                    agent, params.session, call_id, created, answer, first, stop, approved
                )
        return self._nav.with_notes(agent, answer)

    async def _first_load(
        self,
        agent: AgentState,
        session: str,
        call_id: str,
        tab_id: int,
        created: Answer,
        url: str,
        stop: Stop,
        approved: str | None,
    ) -> Answer:
        """The created tab, held now, goes to its URL: create's answer as the tab is then, or the load's."""
        target = {"tabs": sorted(agent.tabs()), "tabId": tab_id, "site": None, "caller": agent.id}
        await self._tabs.first_page_shown(tab_id)
        with acting(stop), self._nav.acting(tab_id, session, approved):
            loaded = await first_load(self._service.dispatch, session, call_id, target, url)
        if loaded.get("success") is not True:
            return loaded
        tabs = await self._tabs.all()
        return as_loaded(created, tabs.get(tab_id) if tabs is not None else None)

    def _stop_when_paused(self, tool: str, ends: dict[str, Any]) -> Stop:
        def stop() -> str | None:
            if not self._controls.paused:
                return None
            ends["outcome"] = Outcome.DENIED  # refused by the person's pause, as one refused before asking
            return f"Tabgate stopped {tool} before it reached the page: {PAUSED}."

        return stop

    # -- sessions ending ---------------------------------------------------------------------------------

    def _end_all(self, reason: str) -> None:
        self.consent.end_all(reason)
        for agent in self._book.all():
            agent.cancel_running(reason)
        self._book.end_all_sessions()
        self._agents_changed()

    async def _worker_hello(self, message: m.WorkerHello) -> Answer:
        """A service worker (re)connected: an earlier worker's native port died with it, and so did every
        agent session through that host, even when the new host is up before Python hears of the old one."""
        self._end_all("the service worker restarted")
        self._nav.worker_restarted()
        return {"ok": True}

    async def _closed(self, message: m.GatewayClosed) -> Answer:
        session = str(message.session or "")
        self.consent.end_session(session, "the agent disconnected")
        for agent in self._book.all():
            agent.cancel_running("the agent disconnected", session)
        self._book.end_session(session)
        self._agents_changed()
        return {"ok": True}

    def _agents_changed(self) -> None:
        self._emit(AgentsChanged().to_wire())
