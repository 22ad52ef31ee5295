"""`browser_page`: a tab's title, URL, text, HTML, links, accessibility snapshot, or lines found in it."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.fields import Ref, TabId, used_by
from core.browser.spec import BrowserToolSpec

DEFAULT_MAX_CHARS = 20_000


_FIELD_ACTIONS = {
    "maxChars": ("text", "html", "snapshot", "find"), "ref": ("snapshot",), "offset": ("snapshot",),
    "text": ("find",), "regex": ("find",),
}  # fmt: skip


class BrowserPageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=used_by(_FIELD_ACTIONS))

    action: Literal["title", "url", "text", "html", "links", "snapshot", "find"] = Field(
        description="title, url, text (visible text), html, links, snapshot (outline with refs), find."
    )
    tabId: TabId = None
    maxChars: int = Field(
        default=DEFAULT_MAX_CHARS,
        ge=1,
        le=1_000_000,
        description="text/html/snapshot/find: cut after this many characters.",
    )
    ref: Ref = None
    offset: int = Field(
        default=0, ge=0, description="snapshot: start at this line (the cut line says where)."
    )
    text: str | None = Field(default=None, min_length=1, description="find: text to look for (any case).")
    regex: str | None = Field(default=None, min_length=1, description="find: a regular expression instead.")

    @model_validator(mode="after")
    def _fields_fit_action(self) -> Self:
        if self.action == "find":
            if (self.text is None) == (self.regex is None):
                raise ValueError("find needs exactly one of text or regex")
            if self.regex is not None:
                try:
                    re.compile(self.regex)
                except re.error as error:
                    raise ValueError(f"regex does not compile: {error}") from None
        elif self.text is not None or self.regex is not None:
            raise ValueError(f"text and regex are only used when action is 'find', not '{self.action}'")
        if self.action != "snapshot" and (self.ref is not None or self.offset):
            raise ValueError(f"ref and offset are only used when action is 'snapshot', not '{self.action}'")
        return self

    def pattern(self) -> re.Pattern[str]:
        return (
            re.compile(self.regex) if self.regex is not None else re.compile(re.escape(self.text or ""), re.I)
        )


BROWSER_PAGE = BrowserToolSpec(
    name="browser_page",
    description=(
        "Read the page in a tab (tabId, or the active tab). action=snapshot gives an outline of the page "
        "(role, name, state, [ref=eN] to act on with browser_dom), across frames and shadow roots; {ref} "
        "reads one part, {offset} reads on after a cut. find {text|regex} gives the matching lines with "
        "their refs. Also title, "
        "url, text (visible text), html, links. Needs the user's permission for the page's site."
    ),
    params=BrowserPageArgs,
    # Reading changes nothing, so reads of several pages may overlap.
    supports_parallel=True,
    # Chrome builds the accessibility tree of a very large page slowly (seconds for 5,000 elements here).
    timeout_ms=60_000,
)
