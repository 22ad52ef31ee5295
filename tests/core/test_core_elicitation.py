"""A person's answer to a server's elicitation is checked against the form the server asked for (issue 13)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.capabilities import McpErrorCode
from core.service import Service

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


def check(**message: Any) -> dict[str, Any]:
    answer: dict[str, Any] = asyncio.run(
        Service(emit=lambda _e: None).handle({"type": "elicitation/check", **message})
    )
    return answer


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
    assert list(answer["error"]["fields"]) == [field]
    assert says in answer["error"]["fields"][field]


def test_missing_required_fields_and_unasked_fields_are_refused_together() -> None:
    content = {k: v for k, v in GOOD.items() if k != "email"} | {"password": "hunter2"}
    answer = check(schema=SCHEMA, action="accept", content=content)
    assert answer["error"]["fields"] == {"password": "the server did not ask for this", "email": "required"}


def test_a_malformed_check_names_what_is_wrong() -> None:
    answer = check(schema=SCHEMA, action="maybe")
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS
    assert "action" in answer["error"]["message"]
