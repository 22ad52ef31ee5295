"""Browser tools: arguments validated here, executed with chrome.* by the injected capability."""

from __future__ import annotations

import json

from core.arguments import parse_arguments_model
from core.browser.spec import BrowserToolSpec
from core.capabilities import BrowserCapability, BrowserToolError
from core.deadline import DeadlineExceeded, within
from core.errors import RespondToModel
from core.output import FunctionOutput
from core.payload import FunctionPayload, PayloadKind, ToolCall

# The service worker enforces `timeout_ms`; ours only catches a capability that never answers.
LOCAL_TIMEOUT_MARGIN_MS = 5_000


class BrowserHandler:
    accepts = frozenset({PayloadKind.FUNCTION})

    def __init__(self, spec: BrowserToolSpec, browser: BrowserCapability) -> None:
        self._spec = spec
        self._browser = browser

    async def handle(self, call: ToolCall) -> FunctionOutput:
        if not isinstance(call.payload, FunctionPayload):
            raise RespondToModel(f"{self._spec.name} handler received unsupported payload")
        args = parse_arguments_model(self._spec.params, call.payload.arguments)
        timeout_ms = self._spec.timeout_ms
        request = self._browser.call(
            self._spec.name, args.model_dump(exclude_none=True), timeout_ms=timeout_ms
        )
        try:
            result = await within(request, timeout_ms + LOCAL_TIMEOUT_MARGIN_MS)
        except BrowserToolError as error:
            raise RespondToModel(error.message) from None
        except DeadlineExceeded as error:
            raise RespondToModel(f"{self._spec.name} {error}") from None
        if self._spec.to_output is not None:
            return self._spec.to_output(result)
        if isinstance(result, str):
            return FunctionOutput(result)
        return FunctionOutput(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
