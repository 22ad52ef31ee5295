"""Each browser action names the argument fields it takes (core/browser/actions.py), and the tool's published
schema and its argument checks are made of those declarations (core/browser/action_fields.py): a field the
chosen action does not take is refused naming the action and the field (issue 26, Deliver 3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.browser.action_fields import ACTION
from core.browser.actions import ACTIONS
from core.browser.tool_table import BROWSER_TOOLS
from core.runtime.facade import Service
from tests.core.core_fakes import FakeBrowser, dispatch, function_call

pytestmark = pytest.mark.unit

SPECS = list(BROWSER_TOOLS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_published_field_is_marked_with_the_actions_that_declare_it(spec: Any) -> None:
    """The schema an agent sees says, field by field, exactly which actions take it (no mark: all do)."""
    actions = ACTIONS[spec.name]
    properties = spec.tool_spec.parameters["properties"]
    for name, schema in properties.items():
        if name == ACTION:
            continue
        declaring = [action for action, declared in actions.items() if name in declared.fields.names]
        assert declaring, f"{spec.name}.{name} is taken by no action"
        expected = None if len(declaring) == len(actions) else declaring
        assert schema.get("x-actions") == expected, f"{spec.name}.{name}"
    for action, declared in actions.items():
        unknown = set(declared.fields.names) - set(properties)
        assert not unknown, f"{spec.name} {action} declares fields its model lacks: {unknown}"


async def call(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], FakeBrowser]:
    browser = FakeBrowser({"browser_storage": {"keys": []}})
    svc = Service(emit=lambda event: None, browser=browser)
    answer: dict[str, Any] = await svc.handle(dispatch(function_call(tool, json.dumps(args))))
    return answer, browser


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("browser_dom", {"action": "click", "selector": "#a", "text": "hi"}, "text"),
        ("browser_dom", {"action": "dialog", "accept": True, "ref": "e3"}, "ref"),
        ("browser_dom", {"action": "hover", "ref": "e3", "timeoutMs": 1000}, "timeoutMs"),
        ("browser_tab", {"action": "query", "tabId": 4}, "tabId"),
        ("browser_tab", {"action": "close", "tabId": 4, "pinned": True}, "pinned"),
        ("browser_page", {"action": "title", "maxChars": 10}, "maxChars"),
        ("browser_devtools", {"action": "console", "filter": "api"}, "filter"),
        ("browser_storage", {"action": "keys", "items": {"a": 1}}, "items"),
        ("browser_navigation", {"action": "current_url", "timeoutMs": 1000}, "timeoutMs"),
    ],
)
async def test_a_field_the_action_does_not_take_is_refused_naming_both(
    tool: str, args: dict[str, Any], field: str
) -> None:
    answer, browser = await call(tool, args)
    assert answer["success"] is False
    action = args["action"]
    assert f"{field} is not used when action is '{action}' ({action} takes: " in answer["output"]["output"]
    assert browser.calls == []


async def test_a_field_set_to_null_counts_as_not_given() -> None:
    """Clients that send every field of the schema send the ones they do not mean as null."""
    answer, browser = await call("browser_storage", {"action": "keys", "keys": None, "items": None})
    assert answer["success"] is True, answer
    assert [tool for tool, *_ in browser.calls] == ["browser_storage"]


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("browser_dom", {"action": "press"}, "key is required when action is 'press'"),
        ("browser_dom", {"action": "hover"}, "ref or selector is required when action is 'hover'"),
        (
            "browser_page",
            {"action": "find", "text": "a", "regex": "b"},
            "find needs exactly one of text, regex",
        ),
        ("browser_tab", {"action": "activate"}, "tabId is required when action is 'activate'"),
    ],
)
async def test_what_an_action_requires_comes_from_its_declaration(
    tool: str, args: dict[str, Any], message: str
) -> None:
    answer, browser = await call(tool, args)
    assert answer["success"] is False
    assert message in answer["output"]["output"]
    assert browser.calls == []
