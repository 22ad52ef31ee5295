"""Typing into a text field as one debugger command list: find the field, prepare it, clear it, the keys and
its value read back cost one round trip to the worker (issue 26, the shortest path)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.browser.context import PageContext
from core.browser.elements import Element, gone_or, matched, query, verify
from core.browser.executor import LEFT_PAGE, Answer, Command, CommandFailed, TabState
from core.browser.input_guard import InputGuard, keys_guard
from core.browser.keys import press_chord, type_text
from core.calls.errors import RespondToModel
from core.web.fence import PageText

# Its checks throw (with one of `_NOT_TYPABLE`), which ends the typing's command list before any key.
_NOT_TYPABLE = ("is not a text field (input, textarea or contenteditable)", "is disabled", "is read-only")
_PREPARE_TYPING = """function (clear, reasons) {
  const field = this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement;
  if (!field && !this.isContentEditable) throw new Error(reasons[0]);
  if (this.disabled) throw new Error(reasons[1]);
  if (this.readOnly) throw new Error(reasons[2]);
  this.focus();
  if (field) {
    const n = this.value.length;
    try { this.setSelectionRange(clear ? 0 : n, n); } catch { if (clear) this.select(); }
    return true;
  }
  const range = document.createRange();
  range.selectNodeContents(this);
  if (!clear) range.collapse(false);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
  return true;
}"""
_VALUE = "function () { return this.isContentEditable ? this.textContent : this.value; }"


def _on_element(function: str, session: str | None, *args: Any, ends_if_thrown: bool = False) -> Command:
    """A call of `function` on the element the list's first command found (see `_typing`)."""
    params = {
        "functionDeclaration": function,
        "arguments": [{"value": a} for a in args],
        "returnByValue": True,
        "awaitPromise": True,
    }
    return Command("Runtime.callFunctionOn", params, session, object_of=0, ends_if_thrown=ends_if_thrown)


@dataclass(frozen=True, slots=True)
class Typed:
    """How typing went: the list's answer, the field's value read back (None when the page moved on: a
    dialog, a submitted form's next page), how many of the characters' keys went out before the list
    stopped (a key that opened a dialog counts: the page has it once the dialog is answered; so does one
    that sent the tab to another page, whose keys after it went nowhere), and why it stopped, when that is
    not what the page shows (the tab left, the focus moved)."""

    answer: Answer
    value: Any
    reached: int
    of: int
    why: str | None = None

    @property
    def whole(self) -> bool:
        return self.reached == self.of

    def said(self, label: str) -> str:
        """Tabgate's words for it, without what the page then did."""
        if self.whole:
            return f"Typed {self.of} character(s) into {label}"
        why = f": {self.why}" if self.why else ""
        return f"Typed {self.reached} of {self.of} character(s) into {label}; the rest was not typed{why}"


@dataclass(frozen=True, slots=True)
class _Typing:
    commands: list[Command]
    starts: list[int]  # the index of each character's first key
    guard: InputGuard  # its checks go before each key (core/browser/input_guard.py)

    def reached(self, answered: int) -> int:
        return sum(start < answered for start in self.starts)


def _typing(find: Command, element: Element | None, text: str, *, clear: bool, submit: bool) -> _Typing:
    """Find the field (`find` answers its object; `element` as located, None for a selector's match), prepare
    it (focus; with `clear` all of it selected, which Backspace then deletes: on an empty field that deletes
    nothing), the keys (each after the focus check), its value read back: one list, one round trip."""
    session = element.session if element is not None else None
    prepare = _on_element(_PREPARE_TYPING, session, clear, _NOT_TYPABLE, ends_if_thrown=True)
    guard = keys_guard(element, at=2)
    commands = [find, prepare, *guard.setup]
    if clear:
        commands += guard.guarding(press_chord("Backspace", session))
    starts: list[int] = []
    for char in text:
        starts.append(len(commands) + 1)  # after its check
        commands += guard.guarding(type_text(char, session))
    if submit:
        commands += guard.guarding(press_chord("Enter", session))
    commands.append(_on_element(_VALUE, session))
    return _Typing(commands, starts, guard)


def _finder(element: Element) -> Command:
    """The list's first command, which answers the element's object."""
    if element.is_ref:
        return Command("DOM.resolveNode", element.params, element.session)
    params = {"functionDeclaration": "function () { return this; }", "objectId": element.params["objectId"]}
    return Command("Runtime.callFunctionOn", params, element.session)


def _not_typed(element_label: str, result: dict[str, Any]) -> RespondToModel | None:
    """The field's check that failed (it threw one of `_NOT_TYPABLE`), else the page's exception, fenced."""
    if "exceptionDetails" not in result:
        return None
    detail = result["exceptionDetails"].get("exception", {}).get("description", "error").splitlines()[0]
    reason = detail.removeprefix("Error: ")
    if reason in _NOT_TYPABLE:
        return RespondToModel(f"{element_label} {reason}")
    return RespondToModel(PageText(detail, before=f"{element_label}: the page threw:").render())


async def type_into(
    ctx: PageContext, state: TabState, element: Element, text: str, *, clear: bool, submit: bool
) -> Typed:
    """Types into `element`, found already."""
    typing = _typing(_finder(element), element, text, clear=clear, submit=submit)
    answer = await ctx.cdp.run(
        state.tab_id, typing.commands, epoch=state.epoch if element.unverified else None
    )
    verify(answer, state, element)
    try:
        answer.result(0, "resolve")
    except RespondToModel as error:
        raise gone_or(element, error.message, "cannot reach") from None
    return _typed(answer, typing, element.label, state.epoch)


async def type_by_selector(
    ctx: PageContext, tab_id: int | None, selector: str, text: str, *, clear: bool, submit: bool
) -> Typed:
    """Types into the first element `selector` matches, found by the list's first command. A frame's owner
    is no text field, so nobody types into a frame's document by selector."""
    typing = _typing(query(selector), None, text, clear=clear, submit=submit)
    answer = await ctx.cdp.run(tab_id, typing.commands)
    matched(answer, selector)
    return _typed(answer, typing, selector, answer.state.epoch)


def _typed(answer: Answer, typing: _Typing, label: str, epoch: int) -> Typed:
    refused = _not_typed(label, answer.result(1, label))
    if refused is not None:
        raise refused
    answered = len(answer.results)
    whole = answered == len(typing.commands)  # else the keys stopped (a dialog, a failed key, a check)
    checked = typing.guard.stopped(typing.commands, answer.results)
    keys = answer.results[2 : -1 if whole or checked else None]
    replace(answer, results=keys).checked(f"type into {label}")
    why = LEFT_PAGE if answer.left else checked
    typed = Typed(answer, None, typing.reached(answered), len(typing.starts), why)
    if answer.state.dialog is not None or answer.state.epoch != epoch or not whole:
        return typed
    value = answer.results[-1]
    if isinstance(value, CommandFailed) or "exceptionDetails" in value:
        return typed  # its document went away meanwhile
    return replace(typed, value=value.get("result", {}).get("value"))
