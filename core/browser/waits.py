"""`browser_dom wait_for`: waiting for a selector, a ref to become visible, or text to appear or go."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

from core.browser.context import PageContext
from core.browser.dom_args import BrowserDomArgs
from core.browser.elements import center, locate
from core.browser.executor import Command
from core.browser.page_walk import walk_page
from core.browser.refs import StaleRef
from core.browser.snapshot import build_outline
from core.calls.errors import RespondToModel

_POLL_S = 0.1


async def _until(check: Callable[[], Awaitable[bool]], timeout_ms: int, what: str) -> float:
    started = time.monotonic()
    deadline = started + timeout_ms / 1000
    while True:
        if await check():
            return time.monotonic() - started
        if time.monotonic() >= deadline:
            raise RespondToModel(f"{what} within {timeout_ms} ms")
        await asyncio.sleep(_POLL_S)


async def wait_for(ctx: PageContext, a: BrowserDomArgs) -> str:
    if a.selector is not None:
        expression = f"document.querySelector({json.dumps(a.selector)}) !== null"

        async def found() -> bool:
            answer = await ctx.cdp.run(
                a.tabId, [Command("Runtime.evaluate", {"expression": expression, "returnByValue": True})]
            )
            result = answer.result(0, "wait_for")
            if "exceptionDetails" in result:
                detail = result["exceptionDetails"].get("exception", {}).get("description", "")
                raise RespondToModel(
                    f"invalid selector {a.selector}: {detail.splitlines()[0] if detail else ''}"
                )
            return bool(result["result"].get("value"))

        took = await _until(found, a.timeoutMs, f"no element matched {a.selector}")
        return f"{a.selector} is on the page (after {took * 1000:.0f} ms)."
    if a.ref is not None:
        ref = a.ref

        async def visible() -> bool:
            state, element = await locate(ctx, a.tabId, ref=ref, selector=None)
            try:
                await center(ctx, state, element)
            except StaleRef:
                raise
            except RespondToModel:
                return False
            return True

        took = await _until(visible, a.timeoutMs, f"{ref} did not become visible")
        return f"{ref} is visible (after {took * 1000:.0f} ms)."
    text = a.text if a.text is not None else a.textGone or ""
    gone = a.text is None

    async def seen() -> bool:
        # A find's walk: only the nodes that can hold the text (measured on 100,000 links: each whole walk
        # took 10-25 s, so a wait of one second answered after 13.6).
        match = {"keepAll": 0, "text": text}
        page = build_outline((await walk_page(ctx, a.tabId, budget=10**12, match=match)).frames)
        present = any(text in line.text for line in page.lines)
        return present != gone

    took = await _until(
        seen, a.timeoutMs, f"the text {text!r} {'is still on' if gone else 'did not appear on'} the page"
    )
    return f"The text {text!r} {'is gone' if gone else 'is on the page'} (after {took * 1000:.0f} ms)."
