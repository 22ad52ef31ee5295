"""Servers' elicitation requests, asked of the person through the browser (`elicitation/create`).

The host declares elicitation (form and URL modes) only where it can reach a person: the MCP client gets a
callback from `elicitor(...)` when the host runs under the browser, none under `doctor`. Each request goes to
the browser with the server's name and a time limit, the server's own `tool_timeout_sec` (an elicitation
happens inside one of its tool calls, which cannot outlive that limit anyway). What comes back is checked
against the MCP shape before the server sees it; a person who does not answer in time, a browser that is gone,
or an answer that is not an `ElicitResult` all become an error naming why, never a made-up answer.
"""

from __future__ import annotations

import logging
from typing import Final

import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT
from pydantic import ValidationError

from ..process.browser_link import BrowserGone, BrowserLink

log = logging.getLogger(__name__)

ELICIT_METHOD: Final = "elicitation/create"
# The browser gets a little longer than the person: it answers "cancel" itself when the person's time is up.
BROWSER_MARGIN_SECONDS: Final = 5.0


def elicitor(browser: BrowserLink, server: str, timeout_seconds: float) -> ElicitationFnT:
    """The SDK's `elicitation_callback` for one server: asks the person through the browser."""

    async def ask(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        request = {
            "server": server,
            "timeoutMs": int(timeout_seconds * 1000),
            **params.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        try:
            answer = await browser.request(
                ELICIT_METHOD, request, timeout=timeout_seconds + BROWSER_MARGIN_SECONDS
            )
        except BrowserGone as exc:
            log.info("elicitation from %s not answered: %s", server, exc)
            return types.ErrorData(
                code=types.INTERNAL_ERROR, message=f"Tabgate could not ask the user: {exc}"
            )
        try:
            result = types.ElicitResult.model_validate(answer)
        except ValidationError as exc:
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"the browser's answer is not an elicitation result: {exc.errors()[0]['msg']}",
            )
        if result.action != "accept" or params.mode == "url":
            result = types.ElicitResult(action=result.action)  # content belongs only to an accepted form
        log.info("elicitation from %s answered: %s", server, result.action)
        return result

    return ask
