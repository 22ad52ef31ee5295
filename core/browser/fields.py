"""Fields several browser tools share, so each is described and bounded the same way everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field, StrictInt

TabId = Annotated[StrictInt | None, Field(default=None, description="The tab; the active tab when omitted.")]
# Kept below the tool's own time limit (BrowserToolSpec.timeout_ms) so the wait, not the tool, times out.
WaitMs = Annotated[
    StrictInt, Field(ge=100, le=25_000, description="How long to wait, in milliseconds (≤ 25000).")
]
Ref = Annotated[
    str | None,
    Field(
        default=None, pattern=r"^e[0-9]+$", description="An element's ref from the latest snapshot, e.g. e12."
    ),
]


def used_by(table: dict[str, tuple[str, ...]]) -> Callable[[dict[str, Any]], None]:
    """A `json_schema_extra` that marks each named field with the actions that use it (`x-actions`), so a
    form can show only the fields of the chosen action; fields not named are used by every action."""

    def mark(schema: dict[str, Any]) -> None:
        for name, actions in table.items():
            schema["properties"][name]["x-actions"] = list(actions)

    return mark


Selector = Annotated[
    str | None, Field(default=None, min_length=1, description="A CSS selector (first match).")
]
