"""Every runtime message (contract §5, §11): what extension pages and the service worker send, as one model
each, defined here once.

Python parses each incoming message into its model (`parse_runtime_message`) and dispatches on the model's
class through one table (core/runtime/facade.py, core/agents/agent_calls.py). The build writes the type
names, as constants and JSDoc types, into the extension (`message_types.js`) and the table of
docs/protocol.md (buildsys/message_types.py). Events the core and the worker emit are in
core/messages/event_messages.py.

A model lists the fields its handler reads. Extra fields are kept (a handler deeper in may read the
message as it came); the handlers' own checks of a field's finer shape stay where the rule lives.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.validation import format_validation_error

# Who answers a message: Python (through the bridge), or the service worker itself.
type AnsweredBy = Literal["python", "worker"]
type Answer = dict[str, Any]


class Typed(BaseModel):
    """A message or an event: `TYPE` is its `type`, `DOC` what it is for, `BY` who answers (a message) or
    emits (an event) it."""

    model_config = ConfigDict(frozen=True, extra="allow")
    TYPE: ClassVar[str]
    DOC: ClassVar[str]
    BY: ClassVar[str]


def registers[T: type[Typed]](table: dict[str, T], kind: str, doc: str, by: str) -> Callable[[T], T]:
    """A class decorator: the class becomes the one model of `{type: kind}` in `table`."""

    def register(model: T) -> T:
        if kind in table:
            raise ValueError(f"{kind!r} has two models")
        model.TYPE, model.DOC, model.BY = kind, doc, by
        table[kind] = model
        return model

    return register


class RuntimeMessage(Typed):
    """One runtime message `{type, ...}`."""

    BY: ClassVar[AnsweredBy] = "python"

    type: str

    def to_wire(self) -> dict[str, Any]:
        """The message as it came (extra fields kept), for a handler that reads the plain JSON."""
        return self.model_dump(exclude_unset=True)


MESSAGES: dict[str, type[RuntimeMessage]] = {}


def message(
    kind: str, doc: str, *, answered_by: AnsweredBy = "python"
) -> Callable[[type[RuntimeMessage]], type[RuntimeMessage]]:
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
    target: Any = None  # checked by core/calls/tab_scope.py `CallTarget`


@message("plan", "the current `update_plan` plan")
class Plan(RuntimeMessage):
    pass


@message("cancel", "cancel the running MCP call `call_id`", answered_by="worker")
class Cancel(RuntimeMessage):
    call_id: StrictStr


@message("task/finished", "a task the host resumed has ended: its history entry and record")
class TaskFinished(RuntimeMessage):
    task: Any = None


# --- config and status ------------------------------------------------------------------------------------


@message("status", "Python's and the host's state, the servers", answered_by="worker")
class Status(RuntimeMessage):
    pass


@message("config/get", "the tools config")
class ConfigGet(RuntimeMessage):
    pass


@message("config/set", "change the config by `patch`; the new config")
class ConfigSet(RuntimeMessage):
    patch: Any = None


@message("config/load", "the config the worker stored, at start")
class ConfigLoad(RuntimeMessage):
    config: Any = None


@message("host/state", "the worker's host port connected, was replaced or went away")
class HostStateMessage(RuntimeMessage):
    connected: Any = None
    servers: Any = None


@message("host/servers", "a server started, stopped or failed: the servers' statuses")
class HostServers(RuntimeMessage):
    servers: Any = None


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
    since: Any = None
    limit: Any = None


@message("history/clear", "forget the history", answered_by="worker")
class HistoryClear(RuntimeMessage):
    pass


@message("history/load", "the stored history's index, at start")
class HistoryLoad(RuntimeMessage):
    index: Any = None
    fresh: Any = None


@message("history/changed", "entries were written: their sizes")
class HistoryChanged(RuntimeMessage):
    metas: Any = None


@message("history/refused", "storage refused an entry")
class HistoryRefused(RuntimeMessage):
    id: Any = None
    hasAnswer: Any = None


@message("history/removed", "entries were dropped")
class HistoryRemoved(RuntimeMessage):
    ids: Any = None


# --- MCP servers, their views and questions ---------------------------------------------------------------


@message("prompts", "the host's `prompts/list`, of one `server` or all")
class Prompts(RuntimeMessage):
    server: Any = None


@message("prompt/get", "the host's `prompts/get` of `server`'s prompt `name`")
class PromptGet(RuntimeMessage):
    server: Any = None
    name: Any = None
    arguments: Any = None


@message("server/logs", "what `server` logged lately")
class ServerLogs(RuntimeMessage):
    server: Any = None


@message("servers/signIn", "sign in to `server` (OAuth); answered once the person did")
class ServersSignIn(RuntimeMessage):
    server: Any = None


@message("servers/signOut", "sign out of `server`")
class ServersSignOut(RuntimeMessage):
    server: Any = None


@message("servers/enable", "turn `server` on or off (`enabled`)")
class ServersEnable(RuntimeMessage):
    server: Any = None
    enabled: Any = None


@message("servers/restart", "start `server` again (*Retry*)")
class ServersRestart(RuntimeMessage):
    server: Any = None


@message("elicitation/ask", "a server asks the person (`request`, `pagesOpen`, `windowOpen`)")
class ElicitationAsk(RuntimeMessage):
    request: Any = None
    pagesOpen: Any = None
    windowOpen: Any = None


@message("elicitation/answer", "the person's answer to question `id`")
class ElicitationAnswer(RuntimeMessage):
    id: Any = None


@message("elicitation/expire", "question `id`'s time ran out")
class ElicitationExpire(RuntimeMessage):
    id: Any = None


@message("elicitation/windowClosed", "the person closed the questions' window")
class ElicitationWindowClosed(RuntimeMessage):
    pass


@message("elicitations", "the questions waiting for the person")
class Elicitations(RuntimeMessage):
    pass


# --- MCP Apps ---------------------------------------------------------------------------------------------


@message("app/view", "the App view of a `tool`'s call")
class AppView(RuntimeMessage):
    tool: Any = None


@message("app/request", "one JSON-RPC `message` from an App view")
class AppRequest(RuntimeMessage):
    tool: Any = None
    message: Any = None


@message("app/theme", "the popup's theme changed")
class AppTheme(RuntimeMessage):
    theme: Any = None


# --- agents -----------------------------------------------------------------------------------------------


@message("gateway/tools", "an agent's `tools/list` (`session`, `agent`)")
class GatewayTools(RuntimeMessage):
    session: Any = None
    agent: Any = None


@message("gateway/call", "an agent's `tools/call` (`session`, `agent`, `name`, `arguments`, `callId`)")
class GatewayCall(RuntimeMessage):
    session: Any = None
    agent: Any = None
    name: Any = None
    arguments: Any = None
    callId: Any = None


@message("gateway/closed", "an agent's gateway `session` ended")
class GatewayClosed(RuntimeMessage):
    session: Any = None


@message("agents", "every agent as the popup shows it (how each stands to `activeTabId`)")
class Agents(RuntimeMessage):
    activeTabId: Any = None


@message("gateway/agents", "`agents` by its first name (the gateway bench counts calls with it)")
class GatewayAgents(Agents):
    pass


@message("agents/share", "share tab `tabId` with agent `id`, or stop sharing it (`shared`)")
class AgentsShare(RuntimeMessage):
    id: Any = None
    tabId: Any = None
    shared: Any = None


@message("agents/stop", "stop agent `id`'s calls and questions")
class AgentsStop(RuntimeMessage):
    id: Any = None


@message("agents/pause", "pause every agent's acting calls (`paused`)")
class AgentsPause(RuntimeMessage):
    paused: StrictBool


@message("agents/forget", "forget agent `id`: its grants and trust; the new config")
class AgentsForget(RuntimeMessage):
    id: Any = None


@message("agents/activity", "the activity log, of agent `id` or all, the last `limit` entries")
class AgentsActivity(RuntimeMessage):
    id: StrictStr | None = None
    limit: Annotated[StrictInt, Field(ge=0)] | None = None


@message("agents/activity/load", "the activity log the worker kept, at start")
class AgentsActivityLoad(RuntimeMessage):
    entries: Any = None


@message("approvals", "the agents' calls waiting for the person")
class Approvals(RuntimeMessage):
    pass


@message("approval/answer", "the person's `decision` on approval `id`")
class ApprovalAnswer(RuntimeMessage):
    id: Any = None
    decision: Any = None


@message("tabs/created", "tab `tabId` was opened from tab `sourceTabId`")
class TabsCreated(RuntimeMessage):
    tabId: Any = None
    sourceTabId: Any = None


@message("tabs/removed", "tab `tabId` was closed")
class TabsRemoved(RuntimeMessage):
    tabId: Any = None


@message("nav/paused", "a navigation of tab `tabId` is held: continue or fail it")
class NavPaused(RuntimeMessage):
    tabId: Any = None
