"""What the host declares to every server as an MCP client, in one place: the SDK derives the client's
capabilities (sent in `initialize`, or in each 2026-07-28 request's `_meta`) from the callbacks and extensions
given here. Elicitation only where a person can answer (under the browser); roots only for a server whose
config names them (roots.py); no sampling (a server that needs it refuses with -32021, naming the
capability); client extensions (SEP-2133) go in `extensions`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from mcp.client.extension import ClientExtension
from mcp.client.session import ElicitationFnT, ListRootsFnT

from .apps import APPS_EXTENSION
from .tasks_follow import TasksExtension

# The client extensions every connection advertises: MCP Apps (apps.py) and tasks, which the host follows
# itself (tasks_follow.py; stateless, one instance for all).
EXTENSIONS: tuple[ClientExtension, ...] = (TasksExtension(), APPS_EXTENSION)


class Declared(TypedDict):
    """The `mcp.Client` arguments that make up the client's capabilities."""

    elicitation_callback: ElicitationFnT | None
    list_roots_callback: ListRootsFnT | None
    extensions: Sequence[ClientExtension]


def declared(elicitor: ElicitationFnT | None, roots: ListRootsFnT | None) -> Declared:
    return {"elicitation_callback": elicitor, "list_roots_callback": roots, "extensions": EXTENSIONS}
