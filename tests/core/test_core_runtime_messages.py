"""Every runtime message's fields are typed (core/messages/runtime_messages.py): a field of the wrong type is
refused at the parse, INVALID_PARAMS naming the message and the field, before any handler runs."""

from __future__ import annotations

import pytest

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.messages.runtime_messages import MESSAGES, parse_runtime_message

pytestmark = pytest.mark.unit

# `dispatch`'s `item` is checked by core/calls/items.py, which records a malformed item as `rejected`.
FREE = {("dispatch", "item")}


def _wrong_value(annotation: object) -> object:
    """A JSON value of another type than the field's: a number for a string, a string for anything else."""
    text = str(annotation)
    return (
        7
        if "str'" in text or "Annotated[str," in text or text.startswith("typing.Literal") or text == "Theme"
        else "7"
    )


FIELDS = [
    (kind, name, _wrong_value(field.annotation))
    for kind, model in MESSAGES.items()
    if model.BY == "python"
    for name, field in model.model_fields.items()
    if name != "type" and (kind, name) not in FREE
]


@pytest.mark.parametrize(("kind", "field", "wrong"), FIELDS, ids=[f"{k}.{f}" for k, f, _ in FIELDS])
def test_a_field_of_the_wrong_type_is_refused_naming_it(kind: str, field: str, wrong: object) -> None:
    with pytest.raises(McpRequestError) as refused:
        parse_runtime_message({"type": kind, field: wrong})
    assert refused.value.code == McpErrorCode.INVALID_PARAMS
    assert refused.value.message.startswith(f"{kind}: ")
    assert f"{field}: " in refused.value.message


@pytest.mark.parametrize(
    "message",
    [
        {"type": "host/state", "connected": False, "servers": None},  # the worker, with no host
        {"type": "agents", "activeTabId": 12},
        {"type": "history/load", "index": [{"id": "a", "status": "done", "bytes": 3}], "fresh": True},
        {"type": "tabs/created", "tabId": 3, "sourceTabId": 2},
        {"type": "app/request", "tool": "s__t", "message": {"jsonrpc": "2.0"}, "approved": True},
    ],
)
def test_what_the_extension_sends_is_accepted(message: dict[str, object]) -> None:
    assert parse_runtime_message(message).to_wire() == message
