"""Browser tools: arguments validated here; run as debugger commands Python builds (core/browser/engine.py)
or as one chrome.* call in the service worker."""

from __future__ import annotations

import json
from typing import Any

from core.arguments import parse_arguments_model
from core.browser.cdp import Cdp
from core.browser.context import PageContext, refs_of
from core.browser.engine import runner
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

    def __init__(
        self, spec: BrowserToolSpec, browser: BrowserCapability, upload_dirs: tuple[str, ...] = ()
    ) -> None:
        self._spec = spec
        self._browser = browser
        self._upload_dirs = upload_dirs

    async def handle(self, call: ToolCall) -> FunctionOutput:
        if not isinstance(call.payload, FunctionPayload):
            raise RespondToModel(f"{self._spec.name} handler received unsupported payload")
        args = parse_arguments_model(self._spec.params, call.payload.arguments)
        timeout_ms = self._spec.timeout_ms
        run = runner(args)
        if run is not None:
            context = PageContext(Cdp(self._browser, timeout_ms), refs_of(self._browser), self._upload_dirs)
            request = run(context)
        else:
            request = self._browser.call(
                self._spec.name, args.model_dump(exclude_none=True), timeout_ms=timeout_ms
            )
        try:
            result: Any = await within(request, timeout_ms + LOCAL_TIMEOUT_MARGIN_MS)
        except BrowserToolError as error:
            raise RespondToModel(error.message) from None
        except DeadlineExceeded as error:
            raise RespondToModel(f"{self._spec.name} {error}") from None
        if self._spec.to_output is not None:
            return self._spec.to_output(result)
        if isinstance(result, str):
            return FunctionOutput(result)
        return FunctionOutput(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
