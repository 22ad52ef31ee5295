"""The browser tools this build offers, looked up by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from core.browser.devtools import BROWSER_DEVTOOLS
from core.browser.dom_args import BROWSER_DOM
from core.browser.navigation import BROWSER_NAVIGATION
from core.browser.page import BROWSER_PAGE
from core.browser.screenshot import BROWSER_SCREENSHOT
from core.browser.storage import BROWSER_STORAGE
from core.browser.tab import BROWSER_TAB
from core.browser.tool_spec import BrowserToolSpec


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
    [
        BROWSER_TAB,
        BROWSER_NAVIGATION,
        BROWSER_PAGE,
        BROWSER_DOM,
        BROWSER_DEVTOOLS,
        BROWSER_SCREENSHOT,
        BROWSER_STORAGE,
    ]
)
