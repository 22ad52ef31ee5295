"""Errors reach extension pages in one shape, `{error: {code, message, data?}}`, with codes from the one
table (core/calls/capabilities.py McpErrorCode, shipped as error_codes.js). Real Chromium, the built
extension."""

from __future__ import annotations

from typing import Any

import pytest

from core.calls.capabilities import McpErrorCode
from tests.support.browser import Extension

pytestmark = pytest.mark.e2e


def refused(ext: Extension, message: dict[str, Any]) -> dict[str, Any]:
    answer = ext.send(message)
    assert set(answer) == {"error"}, answer
    error: dict[str, Any] = answer["error"]
    assert isinstance(error["code"], int) and isinstance(error["message"], str) and error["message"]
    return error


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ({"type": "no/such/type"}, McpErrorCode.METHOD_NOT_FOUND, "no/such/type"),
        ({"type": "tools/filter", "text": 5}, McpErrorCode.INVALID_PARAMS, "tools/filter: text: "),
        ({"type": "elicitation/answer", "id": "gone", "action": "accept"}, McpErrorCode.INVALID_PARAMS,
         "already answered"),
        ({"type": "history/changed", "metas": [{"id": 1}]}, McpErrorCode.INVALID_PARAMS, "metas.0.id"),
        ({"type": "servers/restart", "server": "notes"}, McpErrorCode.SERVER_UNAVAILABLE,
         "native host is not connected"),
    ],
)  # fmt: skip
def test_a_page_gets_a_bad_message_refused_as_code_and_message(
    ext_without_host: Extension, message: dict[str, Any], code: int, words: str
) -> None:
    error = refused(ext_without_host, message)
    assert error["code"] == code and words in error["message"], error


def test_the_extension_ships_the_one_table_of_codes(ext_without_host: Extension) -> None:
    shipped = ext_without_host.page.evaluate(
        """async () => ({...(await import(chrome.runtime.getURL("error_codes.js"))).ErrorCode})"""
    )
    assert shipped == {code.name: int(code) for code in McpErrorCode}
