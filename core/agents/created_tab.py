"""A tab an agent creates with a URL (contract §8.2): it opens blank, is held, then goes to its URL as
`navigate` takes one, so that its first load and every redirect of it are decided like any later load. The
agent's answer keeps create's shape: the tab as it is once that load began, not about:blank."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from core.messages.runtime_messages import Dispatch
from core.web.fence import PageText, split

type Answer = dict[str, Any]


def without_url(creates_tab: bool, arguments: Answer) -> tuple[Answer, str | None]:
    """Create's arguments with no URL (the tab opens blank), and the URL it is to go to once held."""
    url = arguments.get("url") if creates_tab else None
    if not isinstance(url, str):
        return arguments, None
    return {key: value for key, value in arguments.items() if key != "url"}, url


async def first_load(
    dispatch: Callable[[Dispatch], Awaitable[Answer]], session: str, call_id: str, target: Answer, url: str
) -> Answer:
    """The created tab (`target`'s, held now) sent to `url` like `navigate`; it waits for the load to begin,
    not end, as create with a URL always did."""
    arguments = {"action": "navigate", "tabId": target["tabId"], "url": url, "waitForLoad": False}
    item = {
        "type": "function_call",
        "name": "browser_navigation",
        "arguments": json.dumps(arguments),
        "call_id": f"{call_id}.load",
    }
    return await dispatch(Dispatch(type=Dispatch.TYPE, item=item, turn=session, target=target))


def as_loaded(created: Answer, tab: Answer | None) -> Answer:
    """Create's answer with the tab's facts as they are now (`tab`: the person's view of it), if known."""
    output = created.get("output")
    text = output.get("output") if isinstance(output, dict) else None
    parts = split(text) if isinstance(text, str) else None
    if parts is None or tab is None or not isinstance(output, dict):
        return created
    try:
        facts = json.loads(parts.page)
    except ValueError:
        return created
    if not isinstance(facts, dict):
        return created
    facts = {key: value for key, value in facts.items() if key != "pendingUrl"} | {
        key: tab[key] for key in ("url", "title", "status") if key in tab
    }
    going = tab.get("pendingUrl")
    if isinstance(going, str) and going:  # not committed yet: where it is going, as create always said
        facts["url"] = going
    page = json.dumps(facts, ensure_ascii=False, separators=(",", ":"))
    return created | {"output": output | {"output": PageText(page, parts.before, parts.after).render()}}
