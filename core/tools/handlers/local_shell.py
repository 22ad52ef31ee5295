"""`local_shell`: a model may ask for a shell; a browser extension has none, and says so."""

from __future__ import annotations

from core.calls.errors import RespondToModel
from core.calls.output import FunctionOutput
from core.calls.payload import PayloadKind, ToolCall
from core.calls.spec import ToolSpec

LOCAL_SHELL = ToolSpec(
    name="local_shell",
    description="Runs a command in a local shell. Not available in a browser extension.",
    parameters={"type": "object", "properties": {}},
    # codex runs shell calls in parallel; kept so the gate treats them the same.
    supports_parallel=True,
)


class LocalShellHandler:
    # codex's shell handler takes both the local_shell item and a function call named like it.
    accepts = frozenset({PayloadKind.LOCAL_SHELL, PayloadKind.FUNCTION})

    async def handle(self, call: ToolCall) -> FunctionOutput:
        raise RespondToModel(
            "local shell is not available in a browser extension: there is no shell to run commands in"
        )
