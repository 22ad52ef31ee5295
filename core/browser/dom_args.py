"""`browser_dom`'s arguments: the fields its actions take (which action takes which: core/browser/actions.py),
and the tool's spec."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from core.browser.fields import Ref, Selector, TabId, WaitMs
from core.browser.tool_spec import BrowserToolSpec

DomAction = Literal[
    "click",
    "hover",
    "type",
    "press",
    "select",
    "check",
    "fill_form",
    "drag",
    "upload",
    "dialog",
    "scroll",
    "wait_for",
]


class FormField(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: Ref = None
    selector: Selector = None
    value: str | bool | list[str] = Field(
        description="text for a text field, true/false for a checkbox, option value(s) for a select."
    )

    @model_validator(mode="after")
    def _one_target(self) -> Self:
        if (self.ref is None) == (self.selector is None):
            raise ValueError("each field needs exactly one of ref or selector")
        return self


class BrowserDomArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: DomAction = Field(description="What to do; each action uses only the fields it names.")
    tabId: TabId = None
    ref: Ref = None
    selector: Selector = None
    button: Literal["left", "right", "middle"] = Field(default="left", description="click: the mouse button.")
    clickCount: StrictInt = Field(default=1, ge=1, le=3, description="click: 2 for a double click.")
    modifiers: tuple[Literal["Alt", "Control", "Meta", "Shift"], ...] = Field(
        default=(), description="click: keys held during the click."
    )
    text: str | None = Field(
        default=None, description="type: the text to type ('\\n' presses Enter). wait_for: text to wait for."
    )
    submit: bool = Field(default=False, description="type: press Enter afterwards.")
    clear: bool = Field(default=False, description="type: replace the current value instead of appending.")
    key: str | None = Field(
        default=None, min_length=1, description="press: a key or chord, e.g. Enter, Control+a, Shift+Tab."
    )
    values: list[str] | None = Field(
        default=None, min_length=1, description="select: option values or labels."
    )
    checked: bool | None = Field(default=None, description="check: the state to leave the checkbox in.")
    fields: list[FormField] | None = Field(
        default=None, min_length=1, description="fill_form: [{ref|selector, value}]."
    )
    toRef: Ref = None
    toSelector: Selector = None
    paths: list[str] | None = Field(
        default=None, min_length=1, description="upload: absolute paths of files in uploadDirs."
    )
    accept: bool | None = Field(
        default=None, description="dialog: accept (OK) or dismiss (Cancel) the open dialog."
    )
    promptText: str | None = Field(default=None, description="dialog: the answer to a prompt.")
    x: StrictInt | None = Field(
        default=None, description="scroll without an element: the horizontal position."
    )
    y: StrictInt | None = Field(default=None, description="scroll without an element: the vertical position.")
    textGone: str | None = Field(default=None, description="wait_for: text to wait to disappear.")
    timeoutMs: WaitMs = 5_000

    def elements(self) -> list[str | None]:
        """Each element the action names: its ref, or None for one named by selector (in the top document)."""
        named = [(self.ref, self.selector), (self.toRef, self.toSelector)]
        named += [(field.ref, field.selector) for field in self.fields or ()]
        return [ref for ref, selector in named if ref is not None or selector is not None]

    @model_validator(mode="after")
    def _fields_fit_together(self) -> Self:
        """What ties fields to each other; which fields each action takes is its declaration's
        (core/browser/actions.py)."""
        targeted = self.ref is not None or self.selector is not None
        if self.ref is not None and self.selector is not None:
            raise ValueError("give ref or selector, not both")
        if self.action == "scroll" and not targeted and self.x is None and self.y is None:
            raise ValueError("scroll needs ref, selector, or x/y")
        return self


BROWSER_DOM = BrowserToolSpec(
    name="browser_dom",
    description=(
        "Act on the page in a tab (tabId, or the active tab) with real mouse and keyboard input. Name the "
        "element by ref (from browser_page snapshot) or CSS selector. action=click {button?, clickCount?, "
        "modifiers?}, "
        "hover, type {text, submit?, clear?}, press {key, e.g. Enter, Control+a}, select {values}, "
        "check {checked}, fill_form {fields:[{ref|selector, value}]}, drag {toRef|toSelector}, "
        "upload {paths}, "
        "dialog {accept, promptText?} (answers an open alert/confirm/prompt), scroll (element, or x/y), "
        "wait_for {text|textGone|ref|selector, timeoutMs}. Needs the user's permission for the page's site."
    ),
    params=BrowserDomArgs,
    supports_parallel=False,
)
