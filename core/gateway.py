"""The extension's side of the agent gateway (contract §8): what agents may see and call, under consent.

The host relays each agent's `tools/list` and `tools/call` as `gateway/tools` and `gateway/call`, naming the
gateway session and the agent (its MCP `clientInfo`). A call becomes a `function_call` item dispatched in the
session's own turn, after the consent policy (core/consent.py) let it through.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from core.capabilities import BrowserCapability, BrowserToolError
from core.consent import ConsentBoard, ConsentRefused, Decision, Intent, acts, site_of, summarize
from core.events import Emit

type Message = dict[str, Any]
type Answer = dict[str, Any]
type Handle = Callable[[Message], Awaitable[Answer]]

GATEWAY_OFF = (
    "Tabgate's agent gateway is off: open Chrome with Tabgate and turn on *Let agents use Tabgate* "
    "in its popup."
)
TAB_LOOKUP_TIMEOUT_MS = 5_000
# Messages after which the gateway switch or the tools agents see may differ.
CHANGES_TOOLS = frozenset({"config/load", "config/set", "host/state", "host/servers"})


def _refusal(text: str) -> Answer:
    return {"error": {"code": -32000, "message": text}}


@dataclass
class Agent:
    """An agent seen this browser session, by the name it gave at `initialize`."""

    name: str
    version: str
    sessions: set[str] = field(default_factory=set)
    calls: int = 0


class AgentGateway:
    def __init__(self, handle: Handle, browser: BrowserCapability | None, emit: Emit) -> None:
        self._handle = handle  # the Service: tools, dispatch, config
        self._browser = browser
        self._emit = emit
        self.consent = ConsentBoard(emit)
        self._agents: dict[str, Agent] = {}
        self._enabled: bool | None = None
        self._routes: dict[str, Handle] = {
            "gateway/tools": self._tools,
            "gateway/call": self._call,
            "gateway/closed": self._closed,
            "gateway/agents": self._agents_list,
            "approvals": self._approvals,
            "approval/answer": self._answer,
        }

    def handles(self, kind: object) -> bool:
        return kind in self._routes

    async def handle(self, message: Message) -> Answer:
        return await self._routes[str(message.get("type"))](message)

    async def after(self, message: Message) -> None:
        """Tell the host (through the service worker) when the switch or the offered tools may differ."""
        if message.get("type") not in CHANGES_TOOLS:
            return
        config = await self._handle({"type": "config/get"})
        enabled = config.get("gateway") is True
        if enabled != self._enabled or message.get("type") == "host/state":
            self._enabled = enabled
            self._emit({"type": "gateway/state", "enabled": enabled})
        if enabled:
            self._emit({"type": "gateway/changed"})

    # -- what agents see ---------------------------------------------------------------------------------

    async def _config(self) -> Answer:
        return await self._handle({"type": "config/get"})

    async def _visible_tools(self, config: Answer) -> list[dict[str, Any]]:
        offered = (await self._handle({"type": "tools"})).get("tools", [])
        sources = {"builtin", "browser"} | ({"mcp"} if config.get("gatewayMcp") is True else set())
        return [tool for tool in offered if tool.get("source") in sources]

    async def _tools(self, message: Message) -> Answer:
        config = await self._config()
        if config.get("gateway") is not True:
            return {"tools": []}
        self._seen(message)
        tools = []
        for tool in await self._visible_tools(config):
            entry = {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "inputSchema": tool.get("parameters", {"type": "object"}),
            }
            if isinstance(tool.get("annotations"), dict):
                entry["annotations"] = tool["annotations"]
            tools.append(entry)
        return {"tools": tools}

    async def _call(self, message: Message) -> Answer:
        config = await self._config()
        if config.get("gateway") is not True:
            return _refusal(GATEWAY_OFF)
        agent = self._seen(message)
        session = str(message.get("session", ""))
        name = str(message.get("name", ""))
        arguments = message.get("arguments") if isinstance(message.get("arguments"), dict) else {}
        assert isinstance(arguments, dict)
        visible = {tool["name"]: tool for tool in await self._visible_tools(config)}
        tool = visible.get(name)
        if tool is None:
            return _refusal(f"Tabgate offers no tool '{name}' to agents (list the tools again).")
        intent = await self._intent(tool, arguments)
        if intent.acts and agent.name not in config.get("gatewayTrusted", []):
            try:
                await self.consent.ask(
                    session, agent.name, intent, timeout_s=float(config.get("approvalTimeoutSec", 120))
                )
            except ConsentRefused as refused:
                return _refusal(str(refused))
        agent.calls += 1
        item = {
            "type": "function_call",
            "name": name,
            "arguments": json.dumps(arguments),
            "call_id": str(message.get("callId") or f"{session}:{uuid.uuid4().hex[:12]}"),
        }
        return await self._handle({"type": "dispatch", "item": item, "turn": session})

    async def _intent(self, tool: dict[str, Any], arguments: dict[str, Any]) -> Intent:
        name = tool["name"]
        action = arguments.get("action") if isinstance(arguments.get("action"), str) else None
        raw_annotations = tool.get("annotations")
        annotations: dict[str, Any] = raw_annotations if isinstance(raw_annotations, dict) else {}
        read_only = annotations.get("readOnlyHint") is True if tool.get("source") == "mcp" else None
        acting = acts(name, action, mcp_read_only=read_only)
        summary = summarize(name, action, arguments)
        if not acting:
            return Intent(name, action, False, None, summary)
        if tool.get("source") == "mcp":
            return Intent(name, action, True, f"mcp tool {name}", summary)
        site = await self._site(name, action, arguments)
        if site is not None:
            summary = f"{summary} on {site}"
        return Intent(name, action, True, site, summary)

    async def _site(self, tool: str, action: str | None, arguments: dict[str, Any]) -> str | None:
        """The site an acting call affects: where it navigates to, else the site of the tab it acts on."""
        url = arguments.get("url")
        if isinstance(url, str) and (tool, action) in {
            ("browser_navigation", "navigate"),
            ("browser_tab", "create"),
        }:
            return site_of(url)
        if self._browser is None:
            return None
        tab_id = arguments.get("tabId")
        query: dict[str, Any] = {"action": "query"}
        if not isinstance(tab_id, int):
            query |= {"active": True, "currentWindow": True}
        try:
            tabs = await self._browser.call("browser_tab", query, timeout_ms=TAB_LOOKUP_TIMEOUT_MS)
        except BrowserToolError:
            return None
        for tab in tabs if isinstance(tabs, list) else []:
            if isinstance(tab, dict) and (not isinstance(tab_id, int) or tab.get("id") == tab_id):
                return site_of(str(tab.get("url", "")))
        return None

    # -- sessions, agents and answers --------------------------------------------------------------------

    def _seen(self, message: Message) -> Agent:
        client = message.get("client") if isinstance(message.get("client"), dict) else {}
        assert isinstance(client, dict)
        name = str(client.get("name") or "unknown agent")[:100]
        agent = self._agents.setdefault(name, Agent(name, str(client.get("version", ""))[:40]))
        agent.sessions.add(str(message.get("session", "")))
        return agent

    async def _closed(self, message: Message) -> Answer:
        session = str(message.get("session", ""))
        self.consent.end_session(session)
        for agent in self._agents.values():
            agent.sessions.discard(session)
        return {"ok": True}

    async def _agents_list(self, message: Message) -> Answer:
        trusted = (await self._config()).get("gatewayTrusted", [])
        return {
            "agents": [
                {
                    "name": agent.name,
                    "version": agent.version,
                    "connected": bool(agent.sessions),
                    "calls": agent.calls,
                    "grants": self.consent.grants_of(agent.name),
                    "actWithoutAsking": agent.name in trusted,
                }
                for agent in sorted(self._agents.values(), key=lambda a: a.name)
            ]
        }

    async def _approvals(self, message: Message) -> Answer:
        return {"pending": self.consent.pending()}

    async def _answer(self, message: Message) -> Answer:
        try:
            decision = Decision(str(message.get("decision")))
        except ValueError:
            return {"error": {"code": -32602, "message": "decision must be one of once, session, deny"}}
        if not self.consent.answer(str(message.get("id")), decision):
            return {"error": {"code": -32602, "message": f"no pending approval {message.get('id')!r}"}}
        return {"ok": True}
