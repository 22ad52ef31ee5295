"""The extension's side of the agent gateway (contract §8, §8.1, §9): what agents see and call, under consent.

The host relays each agent's `tools/list` and `tools/call` as `gateway/tools` and `gateway/call`, naming the
gateway session and the agent (interface A). A call is checked here before anyone is asked (its arguments,
its tab), asked about when it acts, then dispatched in the session's own turn with the `target` the browser
re-checks where the action executes (interface C). The agent is answered with an MCP `CallToolResult` built
here (core/call_result.py); the service worker records `{answer, record}` in the history.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from core.agents import AgentBook, AgentIdentity, AgentState, RunningCall, TabGroups
from core.browser.actions import describe
from core.browser.registry import BROWSER_TOOLS
from core.call_result import AgentCallResult, from_dispatch
from core.capabilities import BrowserCapability, BrowserToolError
from core.consent import AnswerOutcome, ConsentBoard, ConsentRefused, Decision, Question, site_of, summarize
from core.events import Emit
from core.history import record_for
from core.validation import format_validation_error

type Message = dict[str, Any]
type Answer = dict[str, Any]
type Handle = Callable[[Message], Awaitable[Answer]]

GATEWAY_OFF = (
    "Tabgate's agent gateway is off: open Chrome with Tabgate and turn on *Let agents use Tabgate* "
    "in its popup."
)
PAUSED = (
    "paused by the person: Tabgate refuses every acting call until the person resumes agents in its popup"
)
STOPPED = "stopped by the person"
TAB_LOOKUP_TIMEOUT_MS = 5_000
# Messages after which the gateway switch or the tools agents see may differ.
CHANGES_TOOLS = frozenset({"config/load", "config/set", "host/state", "host/servers"})
# MCP-derived tools offered as built-ins: agents get them only with `gatewayMcp` (contract §8.1).
RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
# Tab moves whose destination the tab's history decides, after the question.
HISTORY_MOVES = frozenset({("browser_navigation", "back"), ("browser_navigation", "forward")})
# Built-ins that change nothing in the browser or elsewhere.
READING_BUILTINS = frozenset({"update_plan"}) | RESOURCE_TOOLS


class Refusal(Exception):
    """A call that does not run. `failed`: a failed output (the arguments or tab are wrong); otherwise the
    request is refused (gateway off, paused, denied)."""

    def __init__(self, text: str, *, failed: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.failed = failed

    def internal(self, call_id: str) -> Answer:
        """The core's own answer shape, as the history records it."""
        if self.failed:
            output = {"type": "function_call_output", "call_id": call_id, "output": self.text}
            return {"output": output, "success": False}
        return {"error": {"code": -32000, "message": self.text}}


class _Params(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    session: StrictStr = Field(min_length=1, max_length=200)
    agent: AgentIdentity


class CallParams(_Params):
    name: StrictStr
    arguments: dict[str, Any] = Field(default_factory=dict)
    callId: StrictStr | None = None


class ShareParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: StrictStr
    tabId: StrictInt
    shared: StrictBool


@dataclass(frozen=True, slots=True)
class Prepared:
    """A call ready to dispatch: its (completed) arguments, what to ask, and what the browser re-checks."""

    arguments: dict[str, Any]
    question: Question | None  # None: it only reads
    tab_id: int | None
    site: str | None  # the site the tab must still show when the action reaches it
    creates_tab: bool = False


def _not_yours(tab_id: int, agent: AgentState) -> str:
    return (
        f"Tab {tab_id} is not one of your tabs. You may use the tabs you opened, the tabs opened from them "
        f"and the tabs the person shares with you. Ask the person to open tab {tab_id} and choose *Share "
        f"this tab with {agent.identity.name}* in Tabgate's popup; browser_tab action=query lists your tabs."
    )


class AgentGateway:
    def __init__(
        self,
        handle: Handle,
        browser: BrowserCapability | None,
        emit: Emit,
        groups: TabGroups | None = None,
    ) -> None:
        self._handle = handle  # the Service: tools, dispatch, config
        self._browser = browser
        self._groups = groups
        self._emit = emit
        self.consent = ConsentBoard(emit)
        self._book = AgentBook()
        self._paused = False
        self._enabled: bool | None = None
        self._routes: dict[str, Callable[[Message], Awaitable[Answer]]] = {
            "gateway/tools": self._tools,
            "gateway/call": self._call,
            "gateway/closed": self._closed,
            "approvals": self._approvals,
            "approval/answer": self._answer,
            "agents": self._agents,
            "gateway/agents": self._agents,  # its first name (the gateway bench counts calls with it)
            "agents/share": self._share,
            "agents/stop": self._stop,
            "agents/pause": self._pause,
            "agents/forget": self._forget,
            "tabs/created": self._tab_created,
            "tabs/removed": self._tab_removed,
            "worker/hello": self._worker_hello,
        }

    def handles(self, kind: object) -> bool:
        return kind in self._routes

    async def handle(self, message: Message) -> Answer:
        return await self._routes[str(message.get("type"))](message)

    async def after(self, message: Message) -> None:
        """After a service message: a host gone ends every session; the host hears of switch and tools."""
        kind = message.get("type")
        if kind == "host/state" and message.get("connected") is not True:
            # The native port died (the host exited, or this service worker stopped): every agent's session
            # went with it, and nobody is left to act for.
            self._end_all("the native host disconnected")
        if kind not in CHANGES_TOOLS:
            return
        config = await self._config()
        enabled = config.get("gateway") is True
        if enabled != self._enabled or kind == "host/state":
            self._enabled = enabled
            self._emit({"type": "gateway/state", "enabled": enabled})
        if enabled:
            self._emit({"type": "gateway/changed"})

    # -- what agents see ---------------------------------------------------------------------------------

    async def _config(self) -> Answer:
        return await self._handle({"type": "config/get"})

    async def _visible_tools(self, config: Answer) -> dict[str, dict[str, Any]]:
        offered = (await self._handle({"type": "tools"})).get("tools", [])
        mcp = config.get("gatewayMcp") is True
        sources = {"builtin", "browser"} | ({"mcp"} if mcp else set())
        return {
            tool["name"]: tool
            for tool in offered
            if tool.get("source") in sources and (mcp or tool["name"] not in RESOURCE_TOOLS)
        }

    async def _tools(self, message: Message) -> Answer:
        config = await self._config()
        if config.get("gateway") is not True:
            return {"tools": []}
        try:
            params = _Params.model_validate(message)
        except ValidationError as error:
            return {"error": {"code": -32602, "message": format_validation_error(error)}}
        self._seen(params.agent, params.session)
        tools = []
        for tool in (await self._visible_tools(config)).values():
            entry = {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "inputSchema": tool.get("parameters", {"type": "object"}),
            }
            if isinstance(tool.get("annotations"), dict):
                entry["annotations"] = tool["annotations"]
            tools.append(entry)
        return {"tools": tools}

    # -- one call ----------------------------------------------------------------------------------------

    async def _call(self, message: Message) -> Answer:
        """`{answer: CallToolResult, record}`: the agent's answer and what the history keeps of the call."""
        call_id = str(message.get("callId") or f"gateway:{uuid.uuid4().hex[:12]}")
        try:
            params = CallParams.model_validate(message)
        except ValidationError as error:
            return self._envelope(
                Refusal(f"invalid gateway call: {format_validation_error(error)}").internal(call_id)
            )
        agent = self._seen(params.agent, params.session)
        item = {
            "type": "function_call",
            "name": params.name,
            "arguments": json.dumps(params.arguments),
            "call_id": call_id,
        }
        self._emit(
            {
                "type": "gateway/started",
                "callId": call_id,
                "name": params.name,
                "item": item,
                "caller": agent.label,
            }
        )
        task = asyncio.ensure_future(self._run(agent, params, call_id))
        agent.running[call_id] = RunningCall(
            call_id, params.session, params.name, _action_of(params.arguments), None, time.time(), task
        )
        try:
            internal = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            stopped = agent.running[call_id].stopped if call_id in agent.running else None
            internal = Refusal(f"The call was stopped: {stopped or STOPPED}.").internal(call_id)
        finally:
            agent.running.pop(call_id, None)
        return self._envelope(internal)

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

    async def _run(self, agent: AgentState, params: CallParams, call_id: str) -> Answer:
        try:
            config = await self._config()
            if config.get("gateway") is not True:
                raise Refusal(GATEWAY_OFF)
            tool = (await self._visible_tools(config)).get(params.name)
            if tool is None:
                raise Refusal(f"Tabgate offers no tool '{params.name}' to agents (list the tools again).")
            prepared = await self._prepare(agent, tool, params.arguments)
            running = agent.running.get(call_id)
            if running is not None:
                running.site = prepared.question.site if prepared.question else None
            trusted = agent.identity.executable in config.get("gatewayTrusted", [])
            if prepared.question is not None and not trusted:
                if running is not None:
                    running.asking = True
                try:
                    await self.consent.ask(
                        params.session,
                        prepared.question,
                        timeout_s=float(config.get("approvalTimeoutSec", 120)),
                    )
                except ConsentRefused as refused:
                    raise Refusal(str(refused)) from None
                finally:
                    if running is not None:
                        running.asking = False
        except Refusal as refusal:
            return refusal.internal(call_id)
        item = {
            "type": "function_call",
            "name": params.name,
            "arguments": json.dumps(prepared.arguments),
            "call_id": call_id,
        }
        target = {"tabs": sorted(agent.tabs()), "tabId": prepared.tab_id, "site": prepared.site}
        agent.calls += 1
        answer = await self._handle(
            {"type": "dispatch", "item": item, "turn": params.session, "target": target}
        )
        if answer.get("success") is True:
            await self._used(agent, prepared, answer)
        return answer

    async def _prepare(self, agent: AgentState, tool: dict[str, Any], arguments: dict[str, Any]) -> Prepared:
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
        info = describe(name, action)
        reads = info is not None and info.reads
        if self._paused and not reads:
            raise Refusal(f"Tabgate refused {name if action is None else f'{name} {action}'}: {PAUSED}.")
        tab_id: int | None = getattr(parsed, "tabId", None)
        if tab_id is not None and tab_id not in agent.tabs():
            raise Refusal(_not_yours(tab_id, agent), failed=True)
        creates_tab = (name, action) == ("browser_tab", "create")
        takes_tab = "tabId" in spec.params.model_fields and info is not None and info.target != "none"
        if tab_id is None and takes_tab and not creates_tab:
            # Never the person's active tab: the agent's last one, or a new one in its group.
            tab_id = agent.default_tab()
            if tab_id is None:
                tab_id = await self._open_tab(agent)
            arguments = arguments | {"tabId": tab_id}
        if reads:
            return Prepared(arguments, None, tab_id, None)
        tab = await self._tab(tab_id) if tab_id is not None else None
        tab_site = site_of(str(tab.get("url", ""))) if tab is not None else None
        url = arguments.get("url")
        if info is not None and info.moves_tab and isinstance(url, str):
            # Consent for where the tab goes; the tab must still show what it showed when asked.
            site, bound = site_of(url), tab_site
        else:
            site, bound = tab_site, tab_site
        # Back and forward go wherever the tab's history says: the site is not known when asking.
        leaves_for_unknown = (name, action) in HISTORY_MOVES
        summary = summarize(name, action, arguments)
        if tab_id is not None:
            title = str(tab.get("title", "")) if tab is not None else ""
            summary += f" in tab {tab_id}" + (f" “{title}”" if title else "")
        if site is not None:
            summary += f" on {site}"
        if leaves_for_unknown:
            summary += " (to whatever page the tab's history holds, which may be another site)"
        question = Question(
            agent_id=agent.id,
            agent=agent.identity.name,
            executable=agent.identity.executable,
            tool=name,
            action=action,
            scope=site or f"{name} {action}",
            summary=summary,
            site=site,
            tab_id=tab_id,
            tab_title=str(tab.get("title", "")) if tab is not None else None,
            grantable=not leaves_for_unknown,
        )
        return Prepared(arguments, question, tab_id, bound, creates_tab)

    def _prepare_other(self, agent: AgentState, tool: dict[str, Any], arguments: dict[str, Any]) -> Prepared:
        name = tool["name"]
        action = _action_of(arguments)
        if tool.get("source") == "mcp":
            annotations = tool.get("annotations")
            reads = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        else:
            reads = name in READING_BUILTINS
        if reads:
            return Prepared(arguments, None, None, None)
        if self._paused:
            raise Refusal(f"Tabgate refused {name}: {PAUSED}.")
        scope = f"mcp tool {name}" if tool.get("source") == "mcp" else name
        question = Question(
            agent_id=agent.id,
            agent=agent.identity.name,
            executable=agent.identity.executable,
            tool=name,
            action=action,
            scope=scope,
            summary=summarize(name, action, arguments),
        )
        return Prepared(arguments, question, None, None)

    async def _all_tabs(self) -> dict[int, dict[str, Any]] | None:
        """Every open tab by id, as the person sees them (the gateway's own look-up, not an agent's call);
        None when the browser could not say."""
        if self._browser is None:
            return None
        try:
            tabs = await self._browser.call(
                "browser_tab", {"action": "query"}, timeout_ms=TAB_LOOKUP_TIMEOUT_MS
            )
        except BrowserToolError:
            return None
        if not isinstance(tabs, list):
            return None
        return {tab["id"]: tab for tab in tabs if isinstance(tab, dict) and isinstance(tab.get("id"), int)}

    async def _tab(self, tab_id: int) -> dict[str, Any]:
        tabs = await self._all_tabs()
        if tabs is None:
            raise Refusal(f"Tabgate could not look up tab {tab_id}; try again.", failed=True)
        tab = tabs.get(tab_id)
        if tab is None:
            self._book.tab_removed(tab_id)
            raise Refusal(f"Tab {tab_id} is closed; browser_tab action=query lists your tabs.", failed=True)
        return tab

    async def _open_tab(self, agent: AgentState) -> int:
        if self._groups is None:
            raise Refusal("You have no tab, and Tabgate cannot open one here.", failed=True)
        try:
            tab_id = await self._groups.create()
        except BrowserToolError as error:
            raise Refusal(f"You have no tab, and Tabgate could not open one: {error}", failed=True) from None
        agent.own.add(tab_id)
        agent.last_tab = tab_id
        await self._group(agent, tab_id)
        self._agents_changed()
        return tab_id

    async def _used(self, agent: AgentState, prepared: Prepared, answer: Answer) -> None:
        """After a call ran: its tab is the agent's default; a tab it created is its own, in its group."""
        if prepared.creates_tab:
            created = _created_tab_id(answer)
            if created is None:
                return
            agent.own.add(created)
            agent.last_tab = created
            await self._group(agent, created)
            self._agents_changed()
        elif prepared.tab_id is not None and prepared.tab_id in agent.tabs():
            agent.last_tab = prepared.tab_id

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

    # -- sessions, tabs and the person's controls --------------------------------------------------------

    def _cancel_running(self, agent: AgentState, reason: str, session: str | None = None) -> int:
        """Cancel the calls past their question (those still asking end with their withdrawn question)."""
        calls = [
            call
            for call in agent.running.values()
            if (session is None or call.session == session) and not call.asking
        ]
        for call in calls:
            call.stopped = reason
            call.task.cancel()
        return len(calls)

    def _end_all(self, reason: str) -> None:
        self.consent.end_all(reason)
        for agent in self._book.all():
            self._cancel_running(agent, reason)
        self._book.end_all_sessions()
        self._agents_changed()

    async def _worker_hello(self, message: Message) -> Answer:
        """A service worker (re)connected: an earlier worker's native port died with it, and so did every
        agent session through that host, even when the new host is up before Python hears of the old one."""
        self._end_all("the service worker restarted")
        return {"ok": True}

    async def _closed(self, message: Message) -> Answer:
        session = str(message.get("session", ""))
        self.consent.end_session(session, "the agent disconnected")
        for agent in self._book.all():
            self._cancel_running(agent, "the agent disconnected", session)
        self._book.end_session(session)
        self._agents_changed()
        return {"ok": True}

    async def _tab_created(self, message: Message) -> Answer:
        tab_id, opener = message.get("tabId"), message.get("openerTabId")
        if isinstance(tab_id, int) and isinstance(opener, int):
            owner = self._book.tab_created(tab_id, opener)
            if owner is not None:
                await self._group(owner, tab_id)
                self._agents_changed()
        return {"ok": True}

    async def _tab_removed(self, message: Message) -> Answer:
        if isinstance(message.get("tabId"), int):
            self._book.tab_removed(message["tabId"])
        return {"ok": True}

    async def _agents(self, message: Message) -> Answer:
        config = await self._config()
        trusted = config.get("gatewayTrusted", [])
        looked_up = await self._all_tabs()
        open_tabs = looked_up or {}
        agents = []
        for agent in self._book.all():
            for gone in agent.tabs() - set(open_tabs) if looked_up is not None else ():
                self._book.tab_removed(gone)  # closed while no event reached Python
            agents.append(
                {
                    "id": agent.id,
                    "name": agent.identity.name,
                    "version": agent.identity.version,
                    "executable": agent.identity.executable,
                    "connected": bool(agent.sessions),
                    "calls": agent.calls,
                    "trusted": agent.identity.executable in trusted,
                    "grants": self.consent.grants_of(agent.id),
                    "tabs": [
                        {
                            "tabId": tab_id,
                            "title": str(open_tabs.get(tab_id, {}).get("title", "")),
                            "url": str(open_tabs.get(tab_id, {}).get("url", "")),
                            "shared": tab_id in agent.shared and tab_id not in agent.own,
                        }
                        for tab_id in sorted(agent.tabs())
                    ],
                    "running": [call.to_wire() for call in agent.running.values()],
                    "pending": self.consent.pending(agent.id),
                }
            )
        return {"paused": self._paused, "agents": agents}

    async def _share(self, message: Message) -> Answer:
        try:
            params = ShareParams.model_validate(message)
        except ValidationError as error:
            return {"error": {"code": -32602, "message": format_validation_error(error)}}
        agent = self._book.get(params.id)
        if agent is None:
            return _no_agent(params.id)
        if params.shared:
            agent.shared.add(params.tabId)
        else:
            agent.shared.discard(params.tabId)
            if agent.last_tab == params.tabId and params.tabId not in agent.own:
                agent.last_tab = None
        self._agents_changed()
        return {"ok": True}

    async def _stop(self, message: Message) -> Answer:
        agent = self._book.get(str(message.get("id")))
        if agent is None:
            return _no_agent(message.get("id"))
        stopped = self._cancel_running(agent, STOPPED)
        stopped += self.consent.withdraw(STOPPED, agent_id=agent.id)
        self._agents_changed()
        return {"stopped": stopped}

    async def _pause(self, message: Message) -> Answer:
        if not isinstance(message.get("paused"), bool):
            return {"error": {"code": -32602, "message": "paused must be true or false"}}
        self._paused = message["paused"]
        self._agents_changed()
        return {"paused": self._paused}

    async def _forget(self, message: Message) -> Answer:
        """Its grants and its trust go; the answer carries the config for the worker to store."""
        agent = self._book.get(str(message.get("id")))
        if agent is None:
            return _no_agent(message.get("id"))
        self.consent.forget(agent.id)
        trusted = (await self._config()).get("gatewayTrusted", [])
        kept = [executable for executable in trusted if executable != agent.identity.executable]
        config = await self._handle({"type": "config/set", "patch": {"gatewayTrusted": kept}})
        self._agents_changed()
        return {"ok": True, "config": config}

    async def _approvals(self, message: Message) -> Answer:
        return {"pending": self.consent.pending(), "withdrawn": self.consent.withdrawn()}

    async def _answer(self, message: Message) -> Answer:
        try:
            decision = Decision(str(message.get("decision")))
        except ValueError:
            return {"error": {"code": -32602, "message": "decision must be one of once, session, deny"}}
        approval_id = str(message.get("id"))
        outcome = self.consent.answer(approval_id, decision)
        if outcome is AnswerOutcome.WITHDRAWN:
            return {
                "error": {
                    "code": -32000,
                    "message": f"approval {approval_id!r} was withdrawn (its agent is gone); nothing was run",
                }
            }
        if outcome is AnswerOutcome.UNKNOWN:
            return {"error": {"code": -32602, "message": f"no pending approval {approval_id!r}"}}
        return {"ok": True}

    def _agents_changed(self) -> None:
        self._emit({"type": "agents/changed"})


def _no_agent(agent_id: object) -> Answer:
    return {"error": {"code": -32602, "message": f"no agent {agent_id!r}"}}


def _action_of(arguments: dict[str, Any]) -> str | None:
    action = arguments.get("action")
    return action if isinstance(action, str) else None


def _created_tab_id(answer: Answer) -> int | None:
    output = answer.get("output")
    text = output.get("output") if isinstance(output, dict) else None
    try:
        created = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    tab_id = created.get("id") if isinstance(created, dict) else None
    return tab_id if isinstance(tab_id, int) else None
