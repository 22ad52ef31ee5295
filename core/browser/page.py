"""`browser_page`: read a tab's title, URL, visible text, HTML or links."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.browser.fields import TabId
from core.browser.spec import BrowserToolSpec


class BrowserPageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["title", "url", "text", "html", "links"] = Field(
        description="What to read: the title, the URL, the visible text, the HTML, or the links of the page."
    )
    tabId: TabId = None
    maxChars: int = Field(
        default=20_000, ge=1, le=1_000_000, description="text/html: cut after this many characters."
    )


BROWSER_PAGE = BrowserToolSpec(
    name="browser_page",
    description=(
        "Read the page in a tab (tabId, or the active tab): action=title, url, text (visible text), html, or "
        "links ({text, href} of each link). Needs the user's permission for the page's site."
    ),
    params=BrowserPageArgs,
    # Reading changes nothing, so reads of several pages may overlap.
    supports_parallel=True,
)
