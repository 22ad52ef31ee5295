"""`browser_dom`: act on a page element (a snapshot's ref or a CSS selector) with trusted input: each action
as the debugger commands it sends (mouse, keys, forms, dialogs, uploads). Its arguments are in `dom_args`,
waiting in `waits`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from core.browser.context import PageContext
from core.browser.dom_args import BrowserDomArgs, FormField
from core.browser.elements import Element, at_center, call_on, center, gone_or, verify
from core.browser.executor import LEFT_PAGE, Answer, Command, TabState
from core.browser.frame_input import agent_locate, focus_outside_frames
from core.browser.input_guard import keys_guard, top_world
from core.browser.keys import MODIFIER_BITS, UnknownKey, press_chord
from core.browser.pointer import click_at, drag_onto, mouse
from core.browser.text_entry import type_by_selector, type_into
from core.calls.capabilities import McpRequestError
from core.calls.deadline import DeadlineExceeded
from core.calls.errors import RespondToModel
from core.calls.tab_scope import site_of
from core.host_link.host_requests import ask_host
from core.messages.host_methods import FILES_CHECK_UPLOAD, UploadParams
from core.web.fence import PageText, fence

# JavaScript run on the element itself (Runtime.callFunctionOn, `this` = the element).
_FOCUS = "function () { this.focus(); return true; }"
_KIND = """function () {
  const tag = this.tagName.toLowerCase();
  if (tag === "select") return "select";
  if (tag === "input" && ["checkbox", "radio"].includes(this.type)) return "check";
  if (this.getAttribute("role") === "checkbox" || this.getAttribute("role") === "switch") return "check";
  return "text";
}"""
_CHECKED = """function () {
  if (this instanceof HTMLInputElement && ["checkbox", "radio"].includes(this.type)) return this.checked;
  const aria = this.getAttribute("aria-checked");
  return aria === null ? null : aria === "true";
}"""
_SELECT = """function (values) {
  if (this.tagName !== "SELECT") return {error: "is not a <select>"};
  if (!this.multiple && values.length > 1) return {error: "takes one value (it is not a multiple select)"};
  const options = [...this.options];
  const picked = [];
  for (const v of values) {
    const option = options.find((o) => o.value === v) ?? options.find((o) => o.label.trim() === v);
    if (!option) {
      const names = options.slice(0, 30).map((o) => o.label.trim() || o.value).join(", ");
      return {error: `has no option ${JSON.stringify(v)}`, options: names};
    }
    picked.push(option);
  }
  for (const o of options) o.selected = picked.includes(o);
  this.dispatchEvent(new Event("input", {bubbles: true}));
  this.dispatchEvent(new Event("change", {bubbles: true}));
  return {selected: picked.map((o) => o.value)};
}"""
_FILES = "function () { return this.files ? [...this.files].map((f) => [f.name, f.size]) : null; }"


def _check(answer: Answer, what: str) -> Answer:
    return answer.checked(what)


def _after(answer: Answer, text: str) -> str:
    if answer.state.dialog is not None:
        return f"{text}\nThe page then opened a dialog: {answer.state.dialog.describe()}"
    return text


def _modifiers(names: tuple[str, ...]) -> int:
    bits = 0
    for name in names:
        bits |= MODIFIER_BITS[name]
    return bits


async def _target(ctx: PageContext, a: BrowserDomArgs) -> tuple[TabState, Element]:
    return await agent_locate(ctx, a.tabId, ref=a.ref, selector=a.selector)


async def click(ctx: PageContext, a: BrowserDomArgs) -> str:
    state, element = await _target(ctx, a)
    answer = await click_at(
        ctx, state, element, button=a.button, count=a.clickCount, modifiers=_modifiers(a.modifiers)
    )
    times = "" if a.clickCount == 1 else f" {a.clickCount} times"
    return _after(answer, f"Clicked {element.label}{times}.")


async def hover(ctx: PageContext, a: BrowserDomArgs) -> str:
    state, element = await _target(ctx, a)
    _check((await at_center(ctx, state, element, [mouse("mouseMoved", 0, 0, element.session)]))[0], "hover")
    return f"The mouse is over {element.label}."


def _keys(commands: Callable[[], list[Command]]) -> list[Command]:
    try:
        return commands()
    except UnknownKey as error:
        raise RespondToModel(str(error)) from None


async def type_(ctx: PageContext, a: BrowserDomArgs) -> str | PageText:
    text, label = a.text or "", a.ref or a.selector or ""
    if a.ref is None and a.selector is not None:  # found in the same list as the keys
        typed = await type_by_selector(ctx, a.tabId, a.selector, text, clear=a.clear, submit=a.submit)
    else:
        state, element = await _target(ctx, a)
        typed = await type_into(ctx, state, element, text, clear=a.clear, submit=a.submit)
    done = typed.said(label) + (" and pressed Enter" if a.submit and typed.whole else "")
    if typed.value is not None:  # the page's value (its script may have changed what was typed)
        return PageText(json.dumps(typed.value, ensure_ascii=False), before=f"{done}; its value is now:")
    return _after(typed.answer, done + ".")


async def press(ctx: PageContext, a: BrowserDomArgs) -> str:
    key = a.key or ""
    session, epoch, guard = None, None, None
    tab_id = a.tabId
    if a.ref is not None or a.selector is not None:
        state, element = await _target(ctx, a)
        await call_on(ctx, state, element, _FOCUS)
        # The keys go where the focus is: only while the tab shows the element's document, which holds it.
        session, tab_id, epoch, guard = element.session, state.tab_id, state.epoch, keys_guard(element, at=0)
    elif ctx.by_agent:
        guard = focus_outside_frames()
    chord = _keys(lambda: press_chord(key, session))
    commands = chord if guard is None else [*guard.setup, *guard.guarding(chord)]
    answer = await ctx.cdp.run(tab_id, commands, epoch=epoch)
    if not answer.results:
        raise RespondToModel(f"did not press {key}: {LEFT_PAGE} once the element was focused")
    if guard is not None and (why := guard.stopped(commands, answer.results)):
        raise RespondToModel(f"did not press {key}: {why}")
    return _after(_check(answer, f"press {key}"), f"Pressed {key}.")


async def _select(ctx: PageContext, state: TabState, element: Element, values: list[str]) -> list[str]:
    result = await call_on(ctx, state, element, _SELECT, values)
    if not isinstance(result, dict) or "error" in result:
        error = result.get("error") if isinstance(result, dict) else "did not answer"
        if isinstance(result, dict) and "options" in result:  # the options' names are the page's text
            raise RespondToModel(f"{element.label} {error}. Its options:\n{fence(str(result['options']))}")
        raise RespondToModel(f"{element.label} {error}")
    return list(result["selected"])


def _selected(label: str, values: list[str]) -> tuple[str, str]:
    """Tabgate's line for a select, and the options' values it chose (the page's text)."""
    chosen = json.dumps(values, ensure_ascii=False)
    return f"Selected in {label} (the chosen values below).", f"{label}: {chosen}"


async def select(ctx: PageContext, a: BrowserDomArgs) -> PageText:
    state, element = await _target(ctx, a)
    done, chosen = _selected(element.label, await _select(ctx, state, element, list(a.values or ())))
    return PageText(chosen, before=done)


async def _set_checked(ctx: PageContext, state: TabState, element: Element, want: bool) -> str:
    now = await call_on(ctx, state, element, _CHECKED)
    if now is None:
        raise RespondToModel(f"{element.label} is not a checkbox, radio button or switch")
    if now == want:
        return f"{element.label} was already {'checked' if want else 'unchecked'}."
    answer = await click_at(ctx, state, element)
    if await call_on(ctx, answer.state, element, _CHECKED) != want:
        raise RespondToModel(f"clicking {element.label} did not {'check' if want else 'uncheck'} it")
    return f"{'Checked' if want else 'Unchecked'} {element.label}."


async def check(ctx: PageContext, a: BrowserDomArgs) -> str:
    state, element = await _target(ctx, a)
    return await _set_checked(ctx, state, element, bool(a.checked))


def _truthy(value: str | bool | list[str]) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in ("true", "on", "yes", "checked", "1")
    return bool(value)


@dataclass(frozen=True, slots=True)
class _Filled:
    """Tabgate's line for one field, the page's text it chose (a select's values), and whether the form
    goes on (typing that opened a dialog or stopped short ends it)."""

    line: str
    chosen: str | None = None
    goes_on: bool = True


async def _fill(ctx: PageContext, state: TabState, element: Element, field: FormField) -> _Filled:
    kind = await call_on(ctx, state, element, _KIND)
    if kind == "check":
        return _Filled(await _set_checked(ctx, state, element, _truthy(field.value)))
    if kind == "select":
        values = field.value if isinstance(field.value, list) else [str(field.value)]
        return _Filled(*_selected(element.label, await _select(ctx, state, element, values)))
    if isinstance(field.value, list):
        raise RespondToModel(f"{element.label} is a text field: give its value as a string")
    text = str(field.value).lower() if isinstance(field.value, bool) else field.value
    typed = await type_into(ctx, state, element, text, clear=True, submit=False)
    if typed.whole and typed.answer.state.dialog is None:
        return _Filled(f"Filled {element.label}.")
    return _Filled(_after(typed.answer, typed.said(element.label) + "."), goes_on=False)


async def fill_form(ctx: PageContext, a: BrowserDomArgs) -> str | PageText:
    """The fields in order, all in the document the first was found in: once the tab shows another, the
    rest are not filled (a field of the same name there was not the one asked for)."""
    fields = list(a.fields or ())
    filled: list[_Filled] = []
    epoch: int | None = None
    for field in fields:
        state, element = await agent_locate(ctx, a.tabId, ref=field.ref, selector=field.selector)
        moved = epoch is not None and state.epoch != epoch
        if not moved:
            epoch = state.epoch
            filled.append(await _fill(ctx, state, element, field))
        if moved or not filled[-1].goes_on:
            if len(filled) < len(fields):
                left = ", ".join(f.ref or f.selector or "" for f in fields[len(filled) :])
                why = f", because {LEFT_PAGE}" if moved else ""
                filled.append(_Filled(f"Not filled{why}: {left}."))
            break
    done = "\n".join(f.line for f in filled)
    chosen = [f.chosen for f in filled if f.chosen is not None]
    return PageText("\n".join(chosen), before=done) if chosen else done


async def drag(ctx: PageContext, a: BrowserDomArgs) -> str:
    state, source = await _target(ctx, a)
    _, target = await agent_locate(ctx, state.tab_id, ref=a.toRef, selector=a.toSelector)
    return await drag_onto(ctx, state, source, target)


# How long the host may take to look the paths up on disk.
CHECK_UPLOAD_LIMIT_MS = 10_000


async def _checked_paths(ctx: PageContext, paths: list[str]) -> list[str]:
    """The host resolves each path on disk (symlinks followed) and accepts only regular files inside the
    allowed folders (contract §8.1), answering with its private copies of them, which Chrome reads later
    (§8.2): Pyodide cannot see the disk, so the check is not made here."""
    how = (
        'Allow a folder by adding it to uploadDirs in the Tabgate config (config/set {"uploadDirs": [...]}).'
    )
    if not ctx.upload_dirs:
        raise RespondToModel(f"upload is off: no folder is allowed for uploads. {how}")
    if ctx.host is None:
        raise RespondToModel(
            "upload refused: the native host is needed to check files on disk, and it is not connected "
            "(run `tabgate-host doctor` to see why)."
        )
    try:
        params = UploadParams(paths=paths, folders=list(ctx.upload_dirs))
        checked = await ask_host(ctx.host, FILES_CHECK_UPLOAD, params, limit_ms=CHECK_UPLOAD_LIMIT_MS)
    except McpRequestError as error:
        raise RespondToModel(f"upload refused: {error.message}. {how}") from None
    except DeadlineExceeded:
        raise RespondToModel("upload refused: the native host did not check the files in time") from None
    resolved = checked.get("paths") if isinstance(checked, dict) else None
    if (
        not isinstance(resolved, list)
        or len(resolved) != len(paths)
        or not all(isinstance(p, str) for p in resolved)
    ):
        raise RespondToModel("upload refused: the native host answered the file check without the paths")
    return resolved


async def upload(ctx: PageContext, a: BrowserDomArgs) -> str:
    paths = await _checked_paths(ctx, list(a.paths or ()))
    state, element = await _target(ctx, a)
    params = {**element.params, "files": paths}
    answer = await ctx.cdp.run(state.tab_id, [Command("DOM.setFileInputFiles", params, element.session)])
    verify(answer, state, element)
    try:
        answer.result(0, "upload")
    except RespondToModel as error:
        raise gone_or(element, error.message.removeprefix("upload: "), "cannot upload to") from None
    files = _reported_files(await call_on(ctx, answer.state, element, _FILES), paths)
    if files is None:  # the element's `files` is the page's to define: only what Tabgate set is said
        return f"Set {len(paths)} file(s) on {element.label}; the page did not report them back as set."
    # Chrome accepts a path that does not exist as an empty file, so say the sizes.
    listed = ", ".join(
        f"{name} ({size} bytes{', missing or empty' if size == 0 else ''})" for name, size in files
    )
    return f"Set {len(files)} file(s) on {element.label}: {listed}."


def _reported_files(files: Any, paths: list[str]) -> list[tuple[str, int]] | None:
    """The input's files as the page reports them, if they are the files set (names of those paths, sizes)."""
    names = {PurePosixPath(path).name for path in paths}
    if not isinstance(files, list) or not all(
        isinstance(f, list) and len(f) == 2 and f[0] in names and _is_number(f[1]) for f in files
    ):
        return None
    return [(str(name), int(size)) for name, size in files]


async def dialog(ctx: PageContext, a: BrowserDomArgs) -> PageText | str:
    state = await ctx.cdp.state(a.tabId)
    if state.dialog is None:
        raise RespondToModel(f"no JavaScript dialog is open on tab {state.tab_id}")
    # What an agent may do was asked for the page's site; the answer to this dialog goes to its opener's (an
    # about:blank or data: frame's content is its parent's: no site of its own).
    opener = site_of(state.dialog.url)
    if ctx.by_agent and a.accept and opener is not None and opener != site_of(state.url):
        raise RespondToModel(
            f"the {state.dialog.type} was opened by a frame of {opener} in this page: accepting it (or "
            "typing in its prompt) acts in that frame, which the person was not asked about. Dismiss it: "
            'browser_dom {"action": "dialog", "accept": false}.'
        )
    params: dict[str, Any] = {"accept": bool(a.accept)}
    if a.promptText is not None:
        params["promptText"] = a.promptText
    command = Command("Page.handleJavaScriptDialog", params, state.dialog.session)
    _check(await ctx.cdp.run(state.tab_id, [command]), "dialog")
    verb = "Accepted" if a.accept else "Dismissed"
    if state.dialog.kept_back is not None:
        opener = state.dialog.kept_back
        return f"{verb} the {state.dialog.type} a frame of {opener} opened (its message is not shown)."
    return PageText(state.dialog.message, before=f"{verb} the {state.dialog.type}. Its message:")


async def scroll(ctx: PageContext, a: BrowserDomArgs) -> dict[str, Any]:
    if a.ref is not None or a.selector is not None:
        state, element = await _target(ctx, a)
        await center(ctx, state, element)
        tab_id: int | None = state.tab_id
        expression = "[scrollX, scrollY]"
    else:
        tab_id = a.tabId
        x = "scrollX" if a.x is None else a.x
        y = "scrollY" if a.y is None else a.y
        expression = f"scrollTo({x}, {y}); [scrollX, scrollY]"
    # In Tabgate's isolated world: the page's own scrollTo, scrollX and scrollY may be anything (measured: a
    # page's scrollY of three million characters, unfenced, in this answer).
    read = Command(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True},
        fill=(("contextId", 1, "executionContextId"),),
    )
    answer = await ctx.cdp.run(tab_id, [*top_world(0, oopifs_only=False), read])
    value = answer.result(2, "scroll").get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 2 or not all(_is_number(v) for v in value):
        raise RespondToModel("the page did not report where it is scrolled to")
    return {"scrollX": value[0], "scrollY": value[1]}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
