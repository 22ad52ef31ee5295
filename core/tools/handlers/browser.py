"""The wrapper that runs every browser action, as core/browser/actions.py declares it: arguments validated
here; the tab the call runs on checked against the caller's tabs and the page-access policy
(core/calls/tab_scope.py); the dialog rule applied (an action a dialog blocks does not run while one is
open); the action then runs as debugger commands Python builds or as one chrome.* call in the service worker.
Whether a call may run beside the other calls of its turn (`parallel`) is its action's, not its tool's."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from core.browser.actions import BrowserAction
from core.browser.context import PageContext, refs_of
from core.browser.executor import Cdp, dialog_open, read_dialog
from core.browser.tool_spec import BrowserToolSpec
from core.browser.tool_table import action_of, declared
from core.calls.arguments import InvalidJson, parse_arguments_model, parse_json_arguments
from core.calls.capabilities import BrowserCapability, BrowserToolError, McpCapability
from core.calls.deadline import DeadlineExceeded, within
from core.calls.errors import RespondToModel
from core.calls.output import FunctionOutput
from core.calls.payload import FunctionPayload, PayloadKind, ToolCall
from core.calls.tab_scope import CallTarget, Guard, TabFacts, guard_for, not_shared, refusal
from core.consent.acting_gate import check_acting
from core.web.fence import PageText, fence

# The service worker enforces `timeout_ms`; ours only catches a capability that never answers.
LOCAL_TIMEOUT_MARGIN_MS = 5_000
TAB_FACTS_TIMEOUT_MS = 5_000
NO_TAB = "this call names no tab and none is yours yet: give tabId (browser_tab query lists your tabs)"


class BrowserHandler:
    accepts = frozenset({PayloadKind.FUNCTION})

    def __init__(
        self,
        spec: BrowserToolSpec,
        browser: BrowserCapability,
        upload_dirs: tuple[str, ...] = (),
        host: McpCapability | None = None,
    ) -> None:
        self._spec = spec
        self._browser = browser
        self._upload_dirs = upload_dirs
        self._host = host

    def parallel(self, call: ToolCall) -> bool:
        """Whether the call's action only reads, so it may run beside the other reads of its turn. Arguments
        that do not say a known action make it exclusive (the call then fails on them, alone)."""
        if not isinstance(call.payload, FunctionPayload):
            return False
        try:
            arguments = parse_json_arguments(call.payload.arguments)
        except InvalidJson:
            return False
        named = arguments.get("action") if isinstance(arguments, dict) else None
        action = declared(self._spec.name, named if isinstance(named, str) else None)
        return action is not None and action.parallel

    async def _tab(self, tab_id: int | None, action: str | None) -> TabFacts:
        try:
            raw = await self._browser.call(
                "tab", {} if tab_id is None else {"tabId": tab_id}, timeout_ms=TAB_FACTS_TIMEOUT_MS
            )
        except BrowserToolError as error:
            raise RespondToModel(f"{self._spec.name} {action}: {error.message}") from None
        return TabFacts.from_wire(raw)

    async def _place(
        self, args: BaseModel, name: str | None, action: BrowserAction, target: CallTarget | None
    ) -> tuple[BaseModel, TabFacts | None, Guard | None]:
        """The tab the call runs on (pinned into the arguments, so every step acts on that same tab) and what
        it must still show when the action reaches it."""
        tab_id = getattr(args, "tabId", None)
        if target is not None and tab_id is not None and tab_id not in target.tabs:
            raise not_shared(tab_id)
        if action.info.target != "tab":
            return args, None, None
        if tab_id is None and target is not None:
            tab_id = target.tabId
            if tab_id is None:  # never the person's active tab
                raise RespondToModel(NO_TAB)
        looked_up = target.looked_up(tab_id) if target is not None else None
        tab = looked_up or await self._tab(tab_id, name)
        if target is not None and tab.id not in target.tabs:
            raise not_shared(tab.id)
        guard = guard_for(action.access, tab, target)
        return args.model_copy(update={"tabId": tab.id}), tab, guard

    async def handle(self, call: ToolCall) -> FunctionOutput:
        if not isinstance(call.payload, FunctionPayload):
            raise RespondToModel(f"{self._spec.name} handler received unsupported payload")
        args = parse_arguments_model(self._spec.params, call.payload.arguments)
        name = args.model_dump(include={"action"}).get("action")
        action = action_of(self._spec.name, name)
        args, tab, guard = await self._place(args, name, action, call.target)
        timeout_ms = self._spec.timeout_ms
        if action.run is not None:
            refs = refs_of(self._browser)
            blocked = action.blocked_by_dialog
            cdp = Cdp(self._browser, timeout_ms, guard, blocked_by_dialog=blocked, seen=refs.saw)
            caller = call.target.caller if call.target is not None and call.target.caller else "person"
            context = PageContext(cdp, refs, tab, self._upload_dirs, self._host, caller)
            request = action.run(context, args)
        else:
            wire = args.model_dump(exclude_none=True)
            if guard is not None:
                wire |= guard.to_wire()
            if action.blocked_by_dialog:
                wire["unlessDialog"] = True
            wire |= action.limits(args)
            if tab is not None and self._spec.name == "browser_navigation":
                # back/forward step inside a page Tabgate may read (one entry, like the page's own link).
                wire["viaPage"] = tab.granted
            check_acting()  # an agent's call stops here once the person paused agents
            request = self._browser.call(self._spec.name, wire, timeout_ms=timeout_ms)
        try:
            result: Any = await within(request, timeout_ms + LOCAL_TIMEOUT_MARGIN_MS)
        except BrowserToolError as error:
            raise refusal(error, guard) from None
        except DeadlineExceeded as error:
            raise RespondToModel(f"{self._spec.name} {error}") from None
        if action.blocked_by_dialog and isinstance(result, dict) and "blockedByDialog" in result:
            dialog = read_dialog(result["blockedByDialog"])
            if dialog is not None:
                shown = await Cdp(self._browser, timeout_ms).shown_dialog(tab.url if tab else "", dialog)
                raise dialog_open(int(result.get("tabId", 0)), shown)
        if action.answer is not None:
            result = action.answer(result, args)
        if call.target is not None and self._spec.name == "browser_tab" and isinstance(result, list):
            shared = set(call.target.tabs)
            result = [t for t in result if isinstance(t, dict) and t.get("id") in shared]
        if self._spec.to_output is not None:
            return self._spec.to_output(result)
        # Text from the page reaches the model fenced as data (contract §7.1), here and only here.
        if isinstance(result, PageText):
            return FunctionOutput(result.render())
        text = (
            result
            if isinstance(result, str)
            else json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        )
        return FunctionOutput(fence(text) if action.page_text else text)
