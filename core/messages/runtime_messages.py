"""Every runtime message (contract §5, §11): what extension pages and the service worker send, one model each.

Python parses each incoming message into its model (`parse_runtime_message`: a wrong field is -32602 naming
it) and dispatches on the model's class (core/runtime/facade.py, core/agents/agent_calls.py). The build writes
the names and JSDoc types into `message_types.js` and docs/protocol.md (buildsys/message_types.py). Events are
in core/messages/event_messages.py. A model types every field its handler reads (extra fields kept); a field
another wing's model checks (an agent's identity, a config patch) is its JSON shape, that model named beside.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Literal, cast

from pydantic import Field, StrictBool, StrictInt, StrictStr, ValidationError

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.tab_scope import CallTarget
from core.calls.validation import format_validation_error
from core.messages.message_parts import Count, HistoryMeta, Ms, PageUrl, ServerEntry, SessionId, Theme
from core.messages.typed import Typed, registers

# Who answers a message: Python (through the bridge), or the service worker itself.
type AnsweredBy = Literal["python", "worker"]
type Answer = dict[str, Any]


class RuntimeMessage(Typed):
    """One runtime message `{type, ...}`."""

    BY: ClassVar[AnsweredBy] = "python"

    type: str

    def to_wire(self) -> dict[str, Any]:
        """The message as it came (extra fields kept), for a handler that reads the plain JSON."""
        return self.model_dump(exclude_unset=True)


type Model = type[RuntimeMessage]
MESSAGES: dict[str, Model] = {}


def message(kind: str, doc: str, *, answered_by: AnsweredBy = "python") -> Callable[[Model], Model]:
    return registers(MESSAGES, kind, doc, answered_by)


def parse_runtime_message(raw: object) -> RuntimeMessage:
    """The message as its model: METHOD_NOT_FOUND for an unknown `type`, INVALID_PARAMS naming the wrong
    fields."""
    kind = raw.get("type") if isinstance(raw, dict) else None
    model = MESSAGES.get(kind) if isinstance(kind, str) else None
    if model is None or model.BY != "python":
        raise McpRequestError(McpErrorCode.METHOD_NOT_FOUND, f"unknown message type: {kind!r}")
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise McpRequestError(
            McpErrorCode.INVALID_PARAMS, f"{kind}: {format_validation_error(error)}"
        ) from None


type Route = Callable[[RuntimeMessage], Awaitable[Answer]]


def routed[M: RuntimeMessage](
    model: type[M], handler: Callable[[M], Awaitable[Answer]]
) -> tuple[type[RuntimeMessage], Route]:
    """One entry of a dispatch table: `handler` is only given what `model` parsed, so it takes the model."""
    return model, cast(Route, handler)


def wired(handler: Callable[[dict[str, Any]], Awaitable[Answer]]) -> Route:
    """A handler that reads the message's plain JSON (its own model checks the finer shape)."""

    async def route(message: RuntimeMessage) -> Answer:
        return await handler(message.to_wire())

    return route


# --- tools and calls --------------------------------------------------------------------------------------


@message("tools", "the tools the dispatcher would offer now")
class Tools(RuntimeMessage):
    pass


@message("tools/filter", "the offered and disabled tools matching `text`, best first")
class ToolsFilter(RuntimeMessage):
    text: StrictStr


@message("dispatch", "run one model response item (`turn` groups calls, `target` scopes an agent's call)")
class Dispatch(RuntimeMessage):
    item: Any = None  # checked by core/calls/items.py: a malformed item is refused, recorded `rejected`
    turn: StrictStr | None = None
    target: CallTarget | None = None


@message("plan", "the current `update_plan` plan")
class Plan(RuntimeMessage):
    pass


@message("cancel", "stop the running call `call_id` (the popup's Cancel): it ends `stopped`")
class Cancel(RuntimeMessage):
    call_id: StrictStr


@message("task/finished", "a task the host resumed has ended: its history entry and record")
class TaskFinished(RuntimeMessage):
    task: dict[str, Any]  # its fields checked by core/records/resumed_tasks.py `FinishedTask` (a wing above)


# --- config and status ------------------------------------------------------------------------------------


@message("status", "Python's and the host's state, the servers", answered_by="worker")
class Status(RuntimeMessage):
    pass


@message("config/get", "the tools config")
class ConfigGet(RuntimeMessage):
    pass


@message("config/set", "change the config by `patch`; the new config")
class ConfigSet(RuntimeMessage):
    patch: dict[str, Any]  # its keys checked by the config model (core/runtime/config.py)


@message("config/load", "the config the worker stored, at start")
class ConfigLoad(RuntimeMessage):
    config: dict[str, Any]  # as stored; checked by the config model


@message("host/state", "the worker's host port connected, was replaced or went away")
class HostStateMessage(RuntimeMessage):
    connected: StrictBool
    servers: list[ServerEntry] | None = None  # None: no host, so no servers


@message("host/servers", "a server started, stopped or failed: the servers' statuses")
class HostServers(RuntimeMessage):
    servers: list[ServerEntry]


@message("host/request", "one host JSON-RPC request (`method`, `params`)", answered_by="worker")
class HostRequest(RuntimeMessage):
    method: StrictStr
    params: dict[str, Any] | None = None


@message("worker/hello", "a service worker (re)connected: every agent session ended")
class WorkerHello(RuntimeMessage):
    pass


# --- history ----------------------------------------------------------------------------------------------


@message("history", "the recent calls, newest first", answered_by="worker")
class History(RuntimeMessage):
    since: Ms | None = None
    limit: Count | None = None


@message("history/clear", "forget the history", answered_by="worker")
class HistoryClear(RuntimeMessage):
    pass


@message("history/load", "the stored history's index, at start")
class HistoryLoad(RuntimeMessage):
    index: list[HistoryMeta]
    fresh: StrictBool


@message("history/changed", "entries were written: their sizes")
class HistoryChanged(RuntimeMessage):
    metas: list[HistoryMeta]


@message("history/refused", "storage refused an entry")
class HistoryRefused(RuntimeMessage):
    id: StrictStr
    hasAnswer: StrictBool


@message("history/removed", "entries were dropped")
class HistoryRemoved(RuntimeMessage):
    ids: list[StrictStr]


# --- MCP servers, their views and questions ---------------------------------------------------------------


@message("prompts", "the host's `prompts/list`, of one `server` or all")
class Prompts(RuntimeMessage):
    server: StrictStr | None = None


@message("prompt/get", "the host's `prompts/get` of `server`'s prompt `name`")
class PromptGet(RuntimeMessage):
    server: StrictStr
    name: StrictStr
    arguments: dict[str, StrictStr] | None = None


@message("server/logs", "what `server` logged lately")
class ServerLogs(RuntimeMessage):
    server: StrictStr


@message("servers/signIn", "sign in to `server` (OAuth); answered once the person did")
class ServersSignIn(RuntimeMessage):
    server: StrictStr


@message("servers/signOut", "sign out of `server`")
class ServersSignOut(RuntimeMessage):
    server: StrictStr


@message("servers/enable", "turn `server` on or off (`enabled`)")
class ServersEnable(RuntimeMessage):
    server: StrictStr
    enabled: StrictBool


@message("servers/restart", "start `server` again (*Retry*)")
class ServersRestart(RuntimeMessage):
    server: StrictStr


@message("elicitation/ask", "a server asks the person (`request`, `pagesOpen`, `windowOpen`)")
class ElicitationAsk(RuntimeMessage):
    request: dict[str, Any]  # the server's `elicitation/create` params, as the host relayed them
    pagesOpen: StrictBool
    windowOpen: StrictBool


@message("elicitation/answer", "the person's answer to question `id`")
class ElicitationAnswer(RuntimeMessage):
    id: StrictStr
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = (
        None  # checked against the question's form (core/host_link/elicitation.py)
    )


@message("elicitation/expire", "question `id`'s time ran out")
class ElicitationExpire(RuntimeMessage):
    id: StrictStr


@message("elicitation/windowClosed", "the person closed the questions' window")
class ElicitationWindowClosed(RuntimeMessage):
    pass


@message("elicitations", "the questions waiting for the person")
class Elicitations(RuntimeMessage):
    pass


# --- MCP Apps ---------------------------------------------------------------------------------------------


@message("app/view", "the App view of a `tool`'s call")
class AppView(RuntimeMessage):
    tool: StrictStr  # the App's tool, by its qualified name
    arguments: dict[str, Any] = Field(default_factory=dict)
    answer: dict[str, Any] | None = None  # the popup's `dispatch` answer, when the call completed
    cancelled: StrictBool = False


@message("app/request", "one JSON-RPC `message` from an App view")
class AppRequest(RuntimeMessage):
    tool: StrictStr
    message: dict[str, Any]  # checked as JSON-RPC by core/mcp_apps/app_bridge.py
    theme: Theme = "light"
    version: StrictStr = "0"  # the extension's, from its manifest
    approved: StrictBool | None = None  # the person's answer to the question this message was asked


@message("app/theme", "the popup's theme changed")
class AppTheme(RuntimeMessage):
    theme: Theme


# --- agents -----------------------------------------------------------------------------------------------


@message("gateway/tools", "an agent's `tools/list` (`session`, `agent`)")
class GatewayTools(RuntimeMessage):
    session: SessionId
    agent: dict[str, Any]  # checked by core/agents/identity.py `AgentIdentity` (a wing above)


@message("gateway/call", "an agent's `tools/call` (`session`, `agent`, `name`, `arguments`, `callId`)")
class GatewayCall(GatewayTools):
    name: StrictStr
    arguments: dict[str, Any] = Field(default_factory=dict)  # the tool's, checked by its schema
    callId: StrictStr | None = None


@message("gateway/closed", "an agent's gateway `session` ended")
class GatewayClosed(RuntimeMessage):
    session: StrictStr


@message("agents", "every agent as the popup shows it (how each stands to `activeTabId`)")
class Agents(RuntimeMessage):
    activeTabId: StrictInt | None = None


@message("gateway/agents", "`agents` by its first name (the gateway bench counts calls with it)")
class GatewayAgents(Agents):
    pass


@message("agents/share", "share tab `tabId` with agent `id`, or stop sharing it (`shared`)")
class AgentsShare(RuntimeMessage):
    id: StrictStr
    tabId: StrictInt
    shared: StrictBool


@message("agents/stop", "stop agent `id`'s calls and questions")
class AgentsStop(RuntimeMessage):
    id: StrictStr


@message("agents/pause", "pause every agent's acting calls (`paused`)")
class AgentsPause(RuntimeMessage):
    paused: StrictBool


@message("agents/forget", "forget agent `id`: its grants and trust; the new config")
class AgentsForget(RuntimeMessage):
    id: StrictStr


@message("agents/trust", "let agent `id` act without asking (`trusted`) or not; the new config")
class AgentsTrust(RuntimeMessage):
    id: StrictStr
    trusted: StrictBool


@message("agents/activity", "the activity log, of agent `id` or all, the last `limit` entries")
class AgentsActivity(RuntimeMessage):
    id: StrictStr | None = None
    limit: Count | None = None


@message("agents/activity/load", "the activity log the worker kept, at start")
class AgentsActivityLoad(RuntimeMessage):
    entries: list[dict[str, Any]]  # each checked by core/records/activity_log.py


@message("approvals", "the agents' calls waiting for the person")
class Approvals(RuntimeMessage):
    pass


@message("approval/answer", "the person's `decision` on approval `id`")
class ApprovalAnswer(RuntimeMessage):
    id: StrictStr
    decision: Literal["once", "session", "deny"]


@message("tabs/created", "tab `tabId` was opened from tab `sourceTabId`")
class TabsCreated(RuntimeMessage):
    tabId: StrictInt
    sourceTabId: StrictInt


@message("tabs/removed", "tab `tabId` was closed")
class TabsRemoved(RuntimeMessage):
    tabId: StrictInt


@message("nav/paused", "a navigation of tab `tabId` is held: continue or fail it")
class NavPaused(RuntimeMessage):
    """What the worker reports of one held document request and its tab (core/consent/nav_guard.py judges)."""

    tabId: StrictInt
    url: PageUrl
    method: StrictStr = Field(default="GET", max_length=20)
    body: StrictBool = False  # it carries a body (a form's POST)
    top: StrictBool = True  # the tab's own page, not a frame in it
    redirect: StrictBool = False  # a hop of a server redirect
    restored: StrictBool = False  # a page the back/forward cache restored: committed, with no request
    shown: PageUrl = ""  # the URL the tab shows now (left, if restored)
    title: StrictStr = Field(default="", max_length=1000)  # the tab's title now (for the person's question)
