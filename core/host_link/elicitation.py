"""A person's answer to a server's elicitation, checked against what the server asked for before it is sent.

MCP restricts a form's `requestedSchema` to one flat object of primitives: strings (length, `format`, `enum`
or titled `oneOf` consts), numbers and integers (`minimum`/`maximum`), booleans, and multi-select arrays of
such choices (`minItems`/`maxItems`). The popup builds the form; this module decides whether what the person
entered is an answer the server asked for. Each wrong field gets its own message, so the form can say it next
to the field.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from dataclasses import dataclass
from typing import Any

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.messages.emit import Emit
from core.messages.event_messages import Elicitation, ElicitationDone
from core.messages.runtime_messages import (
    ElicitationAnswer,
    ElicitationAsk,
    ElicitationExpire,
    ElicitationWindowClosed,
)

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


class FieldErrors(McpRequestError):
    """The answer does not fit the form: the one error shape, with `data.fields` naming each wrong field and
    what is wrong with it."""

    def __init__(self, fields: dict[str, str]) -> None:
        message = "; ".join(f"{k}: {v}" for k, v in fields.items())
        super().__init__(McpErrorCode.INVALID_PARAMS, message, {"fields": fields})
        self.fields = fields


def _choices(schema: dict[str, Any]) -> list[Any] | None:
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if (
            isinstance(branches, list)
            and branches
            and all(isinstance(b, dict) and "const" in b for b in branches)
        ):
            return [b["const"] for b in branches]
    return None


def _format_error(value: str, fmt: object) -> str | None:
    if fmt == "email" and not _EMAIL.match(value):
        return "enter an email address"
    if fmt == "uri" and not _URI.match(value):
        return "enter a full address such as https://example.com"
    try:
        if fmt == "date":
            dt.date.fromisoformat(value)
        elif fmt == "date-time":
            dt.datetime.fromisoformat(value)
    except ValueError:
        return "enter a date as YYYY-MM-DD" if fmt == "date" else "enter a date and time (ISO 8601)"
    return None


def _string_error(value: object, schema: dict[str, Any]) -> str | None:
    if not isinstance(value, str):
        return "enter text"
    choices = _choices(schema)
    if choices is not None:
        return None if value in choices else "choose one of the offered values"
    if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
        return f"enter at least {schema['minLength']} characters"
    if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
        return f"enter at most {schema['maxLength']} characters"
    return _format_error(value, schema.get("format"))


def _number_error(value: object, schema: dict[str, Any], integer: bool) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "enter a number"
    if integer and not float(value).is_integer():
        return "enter a whole number"
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, int | float) and value < low:
        return f"enter {low} or more"
    if isinstance(high, int | float) and value > high:
        return f"enter {high} or less"
    return None


def _array_error(value: object, schema: dict[str, Any]) -> str | None:
    raw_items = schema.get("items")
    items: dict[str, Any] = raw_items if isinstance(raw_items, dict) else {}
    choices = _choices(items)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return "choose from the list"
    if choices is not None and any(v not in choices for v in value):
        return "choose only offered values"
    low, high = schema.get("minItems"), schema.get("maxItems")
    if isinstance(low, int) and len(value) < low:
        return f"choose at least {low}"
    if isinstance(high, int) and len(value) > high:
        return f"choose at most {high}"
    return None


def field_error(value: object, schema: dict[str, Any]) -> str | None:
    """Why `value` does not fit the field's schema, or None when it does."""
    match schema.get("type"):
        case "string":
            return _string_error(value, schema)
        case "number" | "integer" as kind:
            return _number_error(value, schema, kind == "integer")
        case "boolean":
            return None if isinstance(value, bool) else "choose yes or no"
        case "array":
            return _array_error(value, schema)
        case other:
            return f"this form asks for an unsupported type {other!r}"


def check_answer(answer: ElicitationAnswer, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The `ElicitResult` to send for the popup's answer to a question asking for `schema`; raises
    FieldErrors when the content does not fit."""
    if answer.action != "accept" or schema is None:
        return {"result": {"action": answer.action}}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    content = answer.content or {}
    errors: dict[str, str] = {}
    for name in content.keys() - properties.keys():
        errors[name] = "the server did not ask for this"
    for name, schema in properties.items():
        if name not in content:
            if name in required:
                errors[name] = "required"
            continue
        problem = field_error(content[name], schema if isinstance(schema, dict) else {})
        if problem:
            errors[name] = problem
    if errors:
        raise FieldErrors(errors)
    return {"result": {"action": "accept", "content": content}}


# --- the lifecycle of a server's question -----------------------------------------------------------------

# A question whose server gave no time limit waits this long for the person.
DEFAULT_TIMEOUT_MS = 10 * 60 * 1000
GONE = "This question was already answered, or its time ran out."


@dataclass(slots=True)
class _Question:
    request: dict[str, Any]
    in_window: bool


def _limit_ms(limit: Any) -> int:
    """The server's time limit for the person when it gave a usable one, else the default."""
    if isinstance(limit, bool) or not isinstance(limit, int | float):
        return DEFAULT_TIMEOUT_MS
    return int(limit) if math.isfinite(limit) and limit > 0 else DEFAULT_TIMEOUT_MS


class Questions:
    """Servers' questions waiting for the person: kept until answered, timed out or their window is closed.
    Python decides each question's time, whether it needs a window of its own, the words of its end, and
    whether an answer fits; the service worker holds the host's request open, runs the timer and the
    window."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._pending: dict[str, _Question] = {}

    def ask(self, ask: ElicitationAsk) -> dict[str, Any]:
        """→ `{id, limitMs, openWindow, timeout: {code, message}}`: the worker shows it in a window when no
        extension page is open or the questions' window already is; `timeout` is what the server hears."""
        limit_ms = _limit_ms(ask.request.get("timeoutMs"))
        question_id = uuid.uuid4().hex
        in_window = ask.windowOpen or not ask.pagesOpen
        self._pending[question_id] = _Question(ask.request, in_window)
        self._emit(Elicitation(id=question_id, request=ask.request).to_wire())
        words = f"nobody answered within {round(limit_ms / 1000)} s"
        return {
            "id": question_id,
            "limitMs": limit_ms,
            "openWindow": in_window,
            "timeout": {"code": McpErrorCode.TIMED_OUT, "message": words},
        }

    def listed(self) -> dict[str, Any]:
        return {"pending": [{"id": key, "request": q.request} for key, q in self._pending.items()]}

    def answer(self, message: ElicitationAnswer) -> dict[str, Any]:
        """The person's answer → `{answered: action, result: ElicitResult}`, or the fields that do not fit."""
        question = self._pending.get(message.id)
        if question is None:
            raise McpRequestError(McpErrorCode.INVALID_PARAMS, GONE)
        schema = question.request.get("requestedSchema")
        if schema is not None and not isinstance(schema, dict):
            raise McpRequestError(
                McpErrorCode.INVALID_PARAMS, "the question's requestedSchema is not an object"
            )
        result = check_answer(message, schema)["result"]
        self._done(message.id)
        return {"answered": result["action"], "result": result}

    def expire(self, message: ElicitationExpire) -> dict[str, Any]:
        """The worker's timer ran out: the question is dropped (the worker answers the server)."""
        question_id = message.id
        return {"expired": question_id in self._pending and self._done(question_id)}

    def window_closed(self, message: ElicitationWindowClosed) -> dict[str, Any]:
        """The person closed the questions' window: what it showed is cancelled."""
        shown = [key for key, q in self._pending.items() if q.in_window]
        for question_id in shown:
            self._done(question_id)
        return {"cancelled": shown, "result": {"action": "cancel"}}

    def _done(self, question_id: str) -> bool:
        del self._pending[question_id]
        self._emit(ElicitationDone(id=question_id).to_wire())
        return True
