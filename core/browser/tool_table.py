"""The browser tools this build offers, looked up by name, each with its arguments model checked against the
fields its actions declare (core/browser/actions.py, core/browser/action_fields.py), and the declaration of a
tool's action."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from core.browser.action_fields import declared_params
from core.browser.actions import ACTIONS, UNDECLARED, ActionInfo, BrowserAction
from core.browser.devtools import BROWSER_DEVTOOLS
from core.browser.dom_args import BROWSER_DOM
from core.browser.navigation import BROWSER_NAVIGATION
from core.browser.page import BROWSER_PAGE
from core.browser.screenshot import BROWSER_SCREENSHOT
from core.browser.storage import BROWSER_STORAGE
from core.browser.tab import BROWSER_TAB
from core.browser.tool_spec import BrowserToolSpec


def _declared(spec: BrowserToolSpec) -> BrowserToolSpec:
    fields = {name: action.fields for name, action in ACTIONS[spec.name].items()}
    return replace(spec, params=declared_params(spec.params, fields))


class BrowserToolRegistry:
    def __init__(self, specs: Iterable[BrowserToolSpec]) -> None:
        self._specs: dict[str, BrowserToolSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"browser tool {spec.name!r} is registered twice")
            self._specs[spec.name] = spec

    def get(self, name: str) -> BrowserToolSpec | None:
        return self._specs.get(name)

    def __iter__(self) -> Iterator[BrowserToolSpec]:
        return iter(self._specs.values())


BROWSER_TOOLS = BrowserToolRegistry(
    _declared(spec)
    for spec in (
        BROWSER_TAB,
        BROWSER_NAVIGATION,
        BROWSER_PAGE,
        BROWSER_DOM,
        BROWSER_DEVTOOLS,
        BROWSER_SCREENSHOT,
        BROWSER_STORAGE,
    )
)


def _default_action(tool: str) -> str | None:
    spec = BROWSER_TOOLS.get(tool)
    default = spec.params.model_fields["action"].default if spec is not None else None
    return default if isinstance(default, str) else None


def action_of(tool: str, action: str | None) -> BrowserAction:
    """The declaration of a validated call's action (each tool's `action` Literal is the table's keys)."""
    actions = ACTIONS.get(tool)
    return actions[action] if actions is not None and action is not None else UNDECLARED


def declared(tool: str, action: str | None) -> BrowserAction | None:
    """The declaration of `tool`'s `action` (a tool with a default action, browser_screenshot, may omit it);
    None for a name that is no browser tool or an action it does not have."""
    actions = ACTIONS.get(tool)
    name = action if action is not None else _default_action(tool)
    if actions is None or name is None or name not in actions:
        return None
    return actions[name]


def describe(tool: str, action: str | None) -> ActionInfo | None:
    """What `tool`'s `action` does, as consent asks it (see `declared`)."""
    found = declared(tool, action)
    return None if found is None else found.info
