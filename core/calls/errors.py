"""Errors a tool call can end with (codex `FunctionCallError`); how each is answered depends on its type."""

from __future__ import annotations


class FunctionCallError(Exception):
    """Base of every error a tool handler or the router raises for one call."""


class RespondToModel(FunctionCallError):
    """Answered to the model as a failed tool output; the turn goes on."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class Fatal(FunctionCallError):
    """Aborts the dispatch: the service answers `{"fatal": message}` instead of an output."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"Fatal error: {self.message}"


class MissingLocalShellCallId(FunctionCallError):
    """A `local_shell_call` item carried neither `call_id` nor `id`."""

    def __str__(self) -> str:
        return "LocalShellCall without call_id or id"
