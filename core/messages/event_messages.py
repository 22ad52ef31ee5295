"""Every event on the `events` ports (contract §5, §11): what the core emits through the bridge, what the
service worker broadcasts itself, and the one a page makes for itself when its port came back. One model
each, defined here once; the build writes their names into the extension with the runtime messages'
(core/messages/runtime_messages.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, create_model

from core.messages.typed import Typed, registers

# Who emits an event: the Python core, the service worker, or a page for itself.
type EmittedBy = Literal["python", "worker", "page"]


class RuntimeEvent(Typed):
    """One event `{type, ...}`."""

    BY: ClassVar[EmittedBy] = "python"

    def to_wire(self) -> dict[str, Any]:
        # Shallow: an event carries what Python built (the activity log, a call's result) as it is, uncopied;
        # only a part that is a model of its own (an MCP call's invocation) is dumped.
        fields = {k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in self.__dict__.items()}
        return {"type": self.TYPE, **fields, **(self.__pydantic_extra__ or {})}


class McpInvocation(BaseModel):
    """What an MCP call asked, as its events carry it (codex `McpInvocation`)."""

    model_config = ConfigDict(frozen=True)

    server: str
    tool: str
    arguments: Any


EVENTS: dict[str, type[RuntimeEvent]] = {}


def event(
    kind: str, doc: str, *, emitted_by: EmittedBy = "python"
) -> Callable[[type[RuntimeEvent]], type[RuntimeEvent]]:
    return registers(EVENTS, kind, doc, emitted_by)


@event("McpToolCallBegin", "an MCP tool call began (`call_id`, `invocation`)")
class McpToolCallBegin(RuntimeEvent):
    call_id: str
    invocation: McpInvocation


@event("McpToolCallEnd", "an MCP tool call ended (`duration_ms`, `result`)")
class McpToolCallEnd(RuntimeEvent):
    call_id: str
    invocation: McpInvocation
    duration_ms: int
    result: Any


@event("PlanUpdate", "the `update_plan` plan changed")
class PlanUpdate(RuntimeEvent):
    """The checked arguments as they are (core/messages/emit.py writes them in without a copy)."""

    explanation: str | None = None
    plan: list[dict[str, Any]]


@event("gateway/state", "the agent gateway was turned on or off (`enabled`)")
class GatewayState(RuntimeEvent):
    enabled: bool


@event("gateway/changed", "the tools agents see may have changed")
class GatewayChanged(RuntimeEvent):
    pass


@event("gateway/started", "an agent's call began (`callId`, `name`, `item`, `caller`)")
class GatewayStarted(RuntimeEvent):
    callId: str
    name: str
    item: dict[str, Any]
    caller: str


@event("agents/changed", "an agent, session, grant or pause changed")
class AgentsChanged(RuntimeEvent):
    pass


@event(
    "agents/activity/store",
    "the activity log to store: one new `entry` and how many to `keep`, or all `entries`",
)
class AgentsActivityStore(RuntimeEvent):
    """A change to the stored log: the whole list (`entries`, after a load), or one new entry put first with
    the list then cut to `keep` (each call: the 500-entry list no longer crosses the bridge per call)."""

    entries: list[Any] | None = None  # the entries as core/records/activity.py keeps them (not copied)
    entry: dict[str, Any] | None = None
    keep: int


@event("approval", "the calls waiting for the person changed")
class Approval(RuntimeEvent):
    """What the popup shows of them, as the `approvals` answer has it (core/consent/board.py `listed`)."""

    pending: list[dict[str, Any]]
    held: list[dict[str, Any]]
    withdrawn: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    paused: bool


@event("elicitation", "a server asks the person (`id`, `request`)")
class Elicitation(RuntimeEvent):
    id: str
    request: dict[str, Any]


@event("elicitation/done", "question `id` was answered, expired or withdrawn")
class ElicitationDone(RuntimeEvent):
    id: str


# Events the service worker or a page makes itself: Python only names them and their fields (create_model's
# form; the status's fields are the `status` answer's, in protocol.md).
_OPTIONAL_TEXT = (str | None, None)
_NAMED_ONLY: tuple[tuple[str, str, EmittedBy, dict[str, Any]], ...] = (
    ("status", "Python's or the host's state changed", "worker", {}),
    (
        "progress",
        "an MCP call's progress",
        "worker",
        {
            "call_id": (str, ...),
            "progress": (float, ...),
            "total": (float | None, None),
            "message": _OPTIONAL_TEXT,
        },
    ),
    ("history", "a history entry was written", "worker", {"entry": (dict[str, Any], ...)}),
    ("history/removed", "history entries were dropped", "worker", {"ids": (list[str], ...)}),
    (
        "serverLog",
        "a server logged a line",
        "worker",
        {"server": (str, ...), "level": (str, ...), "logger": _OPTIONAL_TEXT, "data": (str, ...)},
    ),
    (
        "listChanged",
        "a server's `kind` list (tools, prompts, resources) changed",
        "worker",
        {"kind": (str, ...), "server": (str, ...)},
    ),
    ("agents/activity/changed", "the stored activity log changed", "worker", {}),
    ("reconnected", "the page's `events` port came back (made by the page itself)", "page", {}),
)
for _kind, _doc, _by, _fields in _NAMED_ONLY:
    event(_kind, _doc, emitted_by=_by)(create_model(_kind, __base__=RuntimeEvent, __doc__=_doc, **_fields))
