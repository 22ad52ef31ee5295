"""A person's answer to a server's elicitation is checked against the form the server asked for (issue 13)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.calls.capabilities import McpErrorCode
from core.host_link.elicitation import GONE
from core.runtime.facade import Service

pytestmark = pytest.mark.unit

# The shapes the everything server's trigger-elicitation-request asks for, one of each kind.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "check": {"type": "boolean"},
        "email": {"type": "string", "format": "email"},
        "homepage": {"type": "string", "format": "uri"},
        "birthdate": {"type": "string", "format": "date"},
        "integer": {"type": "integer", "minimum": 1, "maximum": 100},
        "number": {"type": "number", "minimum": 0, "maximum": 1000},
        "friend": {"type": "string", "enum": ["Monica", "Rachel"]},
        "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2"}]},
        "instruments": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]},
        },
        "fish": {
            "type": "array",
            "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2"}]},
        },
    },
    "required": ["name", "email"],
}
GOOD = {
    "name": "Ada",
    "check": True,
    "email": "ada@example.org",
    "homepage": "https://ada.example",
    "birthdate": "1815-12-10",
    "integer": 42,
    "number": 3.14,
    "friend": "Rachel",
    "hero": "hero-2",
    "instruments": ["Piano"],
    "fish": ["fish-1", "fish-2"],
}


def check(*, schema: dict[str, Any] | None = None, **message: Any) -> dict[str, Any]:
    """The person's answer to a question asking for `schema`, as the service answers the popup."""

    async def asked_then_answered() -> dict[str, Any]:
        service = Service(emit=lambda _e: None)
        request = {"mode": "form", "message": "?", **({"requestedSchema": schema} if schema else {})}
        asked = await service.handle(ask(request))
        answer: dict[str, Any] = await service.handle(
            {"type": "elicitation/answer", "id": asked["id"], **message}
        )
        if "error" in answer:
            return answer
        assert answer["answered"] == answer["result"]["action"]
        return {"result": answer["result"]}

    return asyncio.run(asked_then_answered())


def ask(request: dict[str, Any], *, pages_open: bool = True, window_open: bool = False) -> dict[str, Any]:
    return {"type": "elicitation/ask", "request": request, "pagesOpen": pages_open, "windowOpen": window_open}


def test_an_answer_that_fits_the_form_is_accepted_with_its_content() -> None:
    assert check(schema=SCHEMA, action="accept", content=GOOD) == {
        "result": {"action": "accept", "content": GOOD}
    }


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_carry_no_content(action: str) -> None:
    assert check(schema=SCHEMA, action=action, content=GOOD) == {"result": {"action": action}}


def test_a_url_request_accepted_carries_no_content() -> None:
    assert check(action="accept") == {"result": {"action": "accept"}}


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("name", "A", "at least 2 characters"),
        ("email", "not-an-address", "email address"),
        ("homepage", "ada.example", "full address"),
        ("birthdate", "10/12/1815", "YYYY-MM-DD"),
        ("integer", 4.5, "whole number"),
        ("integer", 101, "100 or less"),
        ("number", -1, "0 or more"),
        ("number", "3", "enter a number"),
        ("check", "yes", "yes or no"),
        ("friend", "Joey", "offered values"),
        ("hero", "hero-9", "offered values"),
        ("instruments", [], "at least 1"),
        ("instruments", ["Guitar", "Piano", "Drums"], "at most 2"),
        ("fish", ["fish-3"], "only offered values"),
    ],
)
def test_each_wrong_field_is_named_with_what_to_do(field: str, value: object, says: str) -> None:
    answer = check(schema=SCHEMA, action="accept", content={**GOOD, field: value})
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS
    assert list(answer["error"]["data"]["fields"]) == [field]
    assert says in answer["error"]["data"]["fields"][field]


def test_missing_required_fields_and_unasked_fields_are_refused_together() -> None:
    content = {k: v for k, v in GOOD.items() if k != "email"} | {"password": "hunter2"}
    answer = check(schema=SCHEMA, action="accept", content=content)
    assert answer["error"]["data"]["fields"] == {
        "password": "the server did not ask for this",
        "email": "required",
    }


def test_a_malformed_check_names_what_is_wrong() -> None:
    answer = check(schema=SCHEMA, action="maybe")
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS
    assert "action" in answer["error"]["message"]


# --- the lifecycle: kept, shown, timed, answered once ------------------------------------------------------


class Recorded:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.service = Service(emit=self.events.append)

    async def send(self, message: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = await self.service.handle(message)
        return answer


QUESTION = {"mode": "form", "message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}}


async def test_a_question_is_shown_on_every_page_and_listed_until_it_is_answered() -> None:
    side = Recorded()
    asked = await side.send(ask(QUESTION | {"server": "s", "timeoutMs": 30_000}))
    assert side.events == [
        {"type": "elicitation", "id": asked["id"], "request": QUESTION | {"server": "s", "timeoutMs": 30_000}}
    ]
    assert [q["id"] for q in (await side.send({"type": "elicitations"}))["pending"]] == [asked["id"]]
    answer = await side.send({"type": "elicitation/answer", "id": asked["id"], "action": "decline"})
    assert answer == {"answered": "decline", "result": {"action": "decline"}}
    assert side.events[-1] == {"type": "elicitation/done", "id": asked["id"]}
    assert (await side.send({"type": "elicitations"}))["pending"] == []


async def test_a_question_answered_already_or_out_of_time_is_refused_saying_so() -> None:
    side = Recorded()
    asked = await side.send(ask(QUESTION))
    await side.send({"type": "elicitation/answer", "id": asked["id"], "action": "cancel"})
    again = await side.send(
        {"type": "elicitation/answer", "id": asked["id"], "action": "accept", "content": {}}
    )
    assert again == {"error": {"code": McpErrorCode.INVALID_PARAMS, "message": GONE}}


@pytest.mark.parametrize(
    ("limit", "ms", "words"),
    [(30_000, 30_000, "30 s"), (None, 600_000, "600 s"), (-5, 600_000, "600 s"), (True, 600_000, "600 s")],
)
async def test_the_servers_time_limit_is_the_persons_else_ten_minutes(
    limit: Any, ms: int, words: str
) -> None:
    asked = await Recorded().send(ask(QUESTION | ({} if limit is None else {"timeoutMs": limit})))
    assert asked["limitMs"] == ms
    assert asked["timeout"] == {"code": McpErrorCode.TIMED_OUT, "message": f"nobody answered within {words}"}


async def test_a_question_out_of_time_is_dropped_from_every_page() -> None:
    side = Recorded()
    asked = await side.send(ask(QUESTION))
    assert await side.send({"type": "elicitation/expire", "id": asked["id"]}) == {"expired": True}
    assert side.events[-1] == {"type": "elicitation/done", "id": asked["id"]}
    assert await side.send({"type": "elicitation/expire", "id": asked["id"]}) == {"expired": False}


@pytest.mark.parametrize(
    ("pages_open", "window_open", "opens"), [(True, False, False), (False, False, True), (True, True, True)]
)
async def test_a_window_shows_the_question_when_no_page_is_open_or_the_questions_window_is(
    pages_open: bool, window_open: bool, opens: bool
) -> None:
    asked = await Recorded().send(ask(QUESTION, pages_open=pages_open, window_open=window_open))
    assert asked["openWindow"] is opens


async def test_closing_the_questions_window_cancels_what_it_showed_and_nothing_else() -> None:
    side = Recorded()
    in_popup = await side.send(ask(QUESTION))
    in_window = await side.send(ask(QUESTION, pages_open=False))
    closed = await side.send({"type": "elicitation/windowClosed"})
    assert closed == {"cancelled": [in_window["id"]], "result": {"action": "cancel"}}
    assert [q["id"] for q in (await side.send({"type": "elicitations"}))["pending"]] == [in_popup["id"]]


async def test_a_malformed_question_is_refused_naming_the_field() -> None:
    answer = await Recorded().send(
        {"type": "elicitation/ask", "request": "x", "pagesOpen": True, "windowOpen": False}
    )
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS and "request" in answer["error"]["message"]
