"""How a call ended (contract §5, §9, §11): decided once, here, and carried with its answer.

The dispatch answer carries it (`outcome`); history's entry status, the agents' activity log, the popup's
result and the agent's `isError` all read that one value and never the answer's shape.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from core.calls.items import ResponseInputItem


class Outcome(StrEnum):
    # The tool answered. A result without a success flag did not fail (codex: `success.unwrap_or(true)`).
    DONE = "done"
    # The tool answered that it failed: `success: false`, an MCP result with `isError`, or an MCP `Err`.
    FAILED = "failed"
    # The core could not go on (codex `Fatal`), or Python never answered.
    FATAL = "fatal"
    # Not a valid request: nothing ran.
    REJECTED = "rejected"
    # The person refused it (or the pause did, or the approval's time ran out).
    DENIED = "denied"
    # The agent that made it went away, or its approval was withdrawn with it.
    WITHDRAWN = "withdrawn"
    # The person stopped it while it ran.
    STOPPED = "stopped"
    # The service worker stopped while it ran: it may have finished or not.
    INTERRUPTED = "interrupted"

    @property
    def failed(self) -> bool:
        """Anything but done is an error to whoever reads the result (the agent's `isError`)."""
        return self is not Outcome.DONE


def of_success(success: bool | None) -> Outcome:
    """A tool's answer by its success flag: only `False` failed; `None` (no flag) is done, as in codex."""
    return Outcome.FAILED if success is False else Outcome.DONE


def dispatch_answer(output: ResponseInputItem) -> dict[str, Any]:
    """The contract §5 answer of a call that ran: `{output, success, outcome}`."""
    return {
        "output": output.to_wire(),
        "success": output.success,
        "outcome": of_success(output.success).value,
    }
