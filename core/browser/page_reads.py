"""browser_page's title, url, text, html and links: one script in the page (the worker's `pageRead`) reads
them within the bounds given here, and the answer the model gets is made here. Each is cut to `maxChars`
characters as Python counts them (a page's text is UTF-16: a cut made there can split a character in two),
and says when it was cut; links stop at `MAX_LINKS` or when their text and addresses reach `maxChars`, so a
page of huge or countless links cannot fill the answer."""

from __future__ import annotations

from typing import Any

from core.browser.page import BrowserPageArgs

# At most this many links in one `links` answer (the page's first ones).
MAX_LINKS = 1000


def bounds(args: BrowserPageArgs) -> dict[str, int]:
    """What the page may send: a character is at most two UTF-16 units, and the one more beyond `maxChars`
    tells Python there was more; one link beyond `MAX_LINKS` likewise."""
    return {"maxUnits": 2 * args.maxChars + 2, "maxLinks": MAX_LINKS + 1}


def _cut(text: str, max_chars: int) -> tuple[str, bool]:
    return text[:max_chars], len(text) > max_chars


def _links(links: list[dict[str, str]], max_chars: int) -> dict[str, Any]:
    kept: list[dict[str, str]] = []
    used = 0
    for link in links[:MAX_LINKS]:
        used += len(link["text"]) + len(link["href"])
        if used > max_chars:
            break
        kept.append(link)
    answer: dict[str, Any] = {"links": kept}
    if len(kept) < len(links):
        answer["truncated"] = True
    return answer


def answer(result: Any, args: BrowserPageArgs) -> dict[str, Any]:
    """The model's answer from what the page sent for `args.action`. Text and html always say whether they
    were cut; a title, an address and the links say it only when they were."""
    read: dict[str, Any] = result
    what = args.action
    if what == "links":
        links = [{"text": str(link["text"]), "href": str(link["href"])} for link in read["links"]]
        return _links(links, args.maxChars)
    value, cut = _cut(str(read[what]), args.maxChars)
    if what in ("text", "html") or cut:
        return {what: value, "truncated": cut}
    return {what: value}
