"""Fields several browser tools share, so each is described and bounded the same way everywhere."""

from __future__ import annotations

from typing import Annotated

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


Selector = Annotated[
    str | None, Field(default=None, min_length=1, description="A CSS selector (first match).")
]
