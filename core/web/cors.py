"""Whether a page could read a response itself: the same-origin policy and CORS, as Chrome applies them to a
page's script. What the debugger records goes past them (a `no-cors` fetch, an image or a script from another
site gets the whole body), so a body the page could not read is shown only for a site Tabgate may read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.web.web_url import reported_origin


def page_could_read(page_site: str | None, response_url: str, headers: Mapping[str, Any] | None) -> bool:
    """True for a response from the page's own origin (or from no site: data:, blob:), or one whose
    Access-Control-Allow-Origin lets the page's origin (or anyone) read it."""
    came_from = reported_origin(response_url)
    if came_from is None or came_from == page_site:
        return True
    allowed = next(
        (str(v).strip() for k, v in (headers or {}).items() if k.lower() == "access-control-allow-origin"),
        None,
    )
    return allowed == "*" or (
        allowed is not None and page_site is not None and reported_origin(allowed) == page_site
    )
