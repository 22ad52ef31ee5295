"""Talking to the debugger executor (extension/worker/debugger.js): command lists out, results and tab state
back.

Python decides every command; the executor attaches to the tab, runs the list and answers the results with
what it knows of the tab (URL, sessions of out-of-process frames, document epoch, an open dialog).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.calls.capabilities import BrowserCapability, BrowserToolError
from core.calls.chrome_tab import ChromeTab
from core.calls.errors import RespondToModel
from core.calls.tab_scope import Guard, refusal, site_of
from core.consent.acting_gate import check_acting
from core.web.fence import fence


@dataclass(frozen=True, slots=True)
class Command:
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    session: str | None = None
    # Input aimed at an element whose box an earlier command of the same list reads (DOM.getContentQuads):
    # the executor sets x and y to the middle of that result's first quad (in whole pixels, as the node under
    # a point is asked), so scrolling, reading the box and the input cost one round trip; with no box there
    # the list stops, this command answering "no box".
    center_of: int | None = None
    # A call on the object an earlier command of the list answered (DOM.resolveNode's, Runtime.evaluate's):
    # the executor sets objectId from that result, so finding an element and calling on it cost one round
    # trip; with no object there the list stops, this command answering "no object".
    object_of: int | None = None
    # Params taken from earlier results of the list: (param, result index, dotted path in that result); a
    # negative index counts back from this command, a dotted param names a place inside params (the
    # executor fills them in, so a chain of commands costs one round trip; none there: the list stops).
    fill: tuple[tuple[str, int, str], ...] = ()
    # Sent only while a frame of the tab runs in another process (out-of-process iframes: another site's
    # documents), else answered as skipped (core/browser/input_guard.py says when that is enough).
    oopifs_only: bool = False
    # The list stops after this command if the page threw in it (a check that failed: nothing after it runs).
    ends_if_thrown: bool = False
    # Sent together with the next command, both awaited before the list goes on: a key's release goes out
    # with its press (a dialog the press opens still stops the keys after them).
    with_next: bool = False

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"method": self.method, "params": self.params}
        if self.session is not None:
            wire["session"] = self.session
        if self.center_of is not None:
            wire["centerOf"] = self.center_of
        if self.object_of is not None:
            wire["objectOf"] = self.object_of
        if self.fill:
            wire["fill"] = [list(f) for f in self.fill]
        if self.oopifs_only:
            wire["oopifsOnly"] = True
        if self.ends_if_thrown:
            wire["endIfThrown"] = True
        if self.with_next:
            wire["withNext"] = True
        return wire


@dataclass(frozen=True, slots=True)
class Dialog:
    type: str
    message: str
    default_prompt: str
    session: str | None
    url: str = ""  # the address of the frame that opened it
    # The site of the frame that opened it, when Tabgate has no access there: its message is that site's page
    # text, kept back as the page's outline keeps that frame back.
    kept_back: str | None = None

    def describe(self) -> str:
        how = (
            "accept (with promptText for a prompt) or dismiss it"
            if self.type == "prompt"
            else "accept or dismiss it"
        )
        answer = f'Answer it first: browser_dom {{"action": "dialog", "accept": true|false}} ({how}).'
        if self.kept_back is not None:
            return (
                f"a JavaScript {self.type} opened by a frame of {self.kept_back} is open (Tabgate has no "
                f"access to that site: its message is not shown). {answer}"
            )
        return f"a JavaScript {self.type} is open. Its message:\n{fence(self.message)}\n{answer}"


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    target_id: str
    url: str


@dataclass(frozen=True, slots=True)
class CommandFailed:
    message: str


type Outcome = dict[str, Any] | CommandFailed


@dataclass(frozen=True, slots=True)
class TabState:
    tab_id: int
    url: str
    title: str
    epoch: int
    dialog: Dialog | None
    sessions: tuple[Session, ...]
    frames: int = 0  # the frames' changes the executor has seen (attached, detached, navigated)


# Why an action stopped short when its list did (`Answer.left`), in the words the model reads.
LEFT_PAGE = "the tab began to load another page"


@dataclass(frozen=True, slots=True)
class Answer:
    state: TabState
    results: tuple[Outcome, ...]
    # A command opened a JavaScript dialog (it answered as the dialog opened, before it finished).
    opened_dialog: bool
    drag: Any = None
    # The list stopped because the tab began to load another document (what its commands or the page did):
    # the rest of its commands were not sent, to that document or any.
    left: bool = False

    def checked(self, what: str) -> Answer:
        """This answer, once every command's result is known good (the first failed one is the error)."""
        for index in range(len(self.results)):
            self.result(index, what)
        return self

    def result(self, index: int, what: str) -> dict[str, Any]:
        """The result of command `index`; a failed or missing one is an error naming `what`."""
        if index >= len(self.results):
            raise RespondToModel(f"{what}: the page did not get that far")
        outcome = self.results[index]
        if isinstance(outcome, CommandFailed):
            raise RespondToModel(f"{what}: {outcome.message}")
        return outcome


@dataclass(frozen=True, slots=True)
class Buffer:
    """What the executor recorded of a tab (console, network or dialogs), oldest first; each entry carries the
    document epoch it was recorded in."""

    state: TabState
    entries: list[dict[str, Any]]
    fresh: bool  # recording only started now: Tabgate had not acted on the tab before
    loader_id: str | None  # the loader of the document shown now, when a navigation was seen


def dialog_open(tab_id: int, dialog: Dialog) -> RespondToModel:
    """The modal-state rule's answer: the action did not run; how to answer the dialog first."""
    return RespondToModel(f"Tab {tab_id}: {dialog.describe()}")


def read_dialog(raw: Any) -> Dialog | None:
    if not isinstance(raw, dict):
        return None
    return Dialog(
        type=str(raw.get("type", "alert")),
        message=str(raw.get("message", "")),
        default_prompt=str(raw.get("defaultPrompt") or ""),
        session=raw.get("session"),
        url=str(raw.get("url") or ""),
    )


def _state(raw: dict[str, Any]) -> TabState:
    tab = ChromeTab.model_validate(raw["tab"])
    return TabState(
        tab_id=tab.id,
        url=tab.shown_url,
        title=tab.title or "",
        epoch=int(raw.get("epoch", 0)),
        dialog=read_dialog(raw.get("dialog")),
        sessions=tuple(
            Session(s["id"], s["targetId"], str(s.get("url", ""))) for s in raw.get("sessions", ())
        ),
        frames=int(raw.get("frames", 0)),
    )


def _outcome(raw: dict[str, Any]) -> Outcome:
    if "error" in raw:
        return CommandFailed(str(raw["error"]))
    if "dialog" in raw:  # the command opened a dialog: it did its part (the answer says the dialog)
        return {}
    result = raw.get("result")
    return result if isinstance(result, dict) else {}


class Cdp:
    """One tool call's view of the executor; every request carries the call's time limit and, until the
    action moves the tab (`release`), the site the tab must still show (checked by the executor right before
    it sends the first command of each list). `blocked_by_dialog` is the action's declaration (actions.py):
    while a dialog is open its commands do not run and the call answers how to answer the dialog."""

    def __init__(
        self,
        browser: BrowserCapability,
        timeout_ms: int,
        guard: Guard | None = None,
        *,
        blocked_by_dialog: bool = True,
        seen: Callable[[TabState], None] | None = None,
    ) -> None:
        self._browser = browser
        self._timeout_ms = timeout_ms
        self._guard = guard
        self._blocked_by_dialog = blocked_by_dialog
        self._seen = seen  # told what each answer showed of its tab

    def release(self) -> None:
        """The action has sent the tab elsewhere (a navigation began): what it shows next is its own doing."""
        self._guard = None

    async def _ask(self, kind: str, args: dict[str, Any]) -> Any:
        check_acting()  # an agent's call stops here once the person paused agents
        guard = self._guard
        if guard is not None:
            args = {**args, **guard.to_wire()}
        try:
            return await self._browser.call(kind, args, timeout_ms=self._timeout_ms)
        except BrowserToolError as error:
            raise refusal(error, guard) from None

    async def run(
        self,
        tab_id: int | None,
        commands: Sequence[Command],
        *,
        parallel: bool = False,
        keep_going: bool = False,
        epoch: int | None = None,
        frames: int | None = None,
    ) -> Answer:
        """Runs the commands in the tab. For an action a dialog blocks, nothing runs while one is open (the
        modal-state rule) and the answer is an error saying how to answer the dialog. With `epoch`, nothing
        runs unless the tab still shows that document (the caller reads the answer's epoch); with `frames`,
        nothing runs once its frames changed since the executor's count was that. A list run one command
        after the other stops once the tab begins to load another document than its own (`left`)."""
        blocked = self._blocked_by_dialog
        args: dict[str, Any] = {
            "commands": [c.to_wire() for c in commands],
            "parallel": parallel,
            "keepGoing": keep_going,
            "unlessDialog": blocked,
        }
        if tab_id is not None:
            args["tabId"] = tab_id
        if epoch is not None:
            args["epoch"] = epoch
        if frames is not None:
            args["frames"] = frames
        raw = await self._ask("cdp", args)
        state = _state(raw)
        if state.dialog is not None:
            state = replace(state, dialog=await self.shown_dialog(state.url, state.dialog))
        if self._seen is not None:
            self._seen(state)
        if state.dialog is not None and blocked and commands and not raw.get("results"):
            raise dialog_open(state.tab_id, state.dialog)
        results = tuple(_outcome(r) for r in raw.get("results", ()))
        opened = any("dialog" in r for r in raw.get("results", ()))
        return Answer(state, results, opened, raw.get("drag"), left=raw.get("left") is True)

    async def state(self, tab_id: int | None) -> TabState:
        return (await self.run(tab_id, ())).state

    async def buffer(self, tab_id: int | None, name: str) -> Buffer:
        args: dict[str, Any] = {"buffer": name}
        if tab_id is not None:
            args["tabId"] = tab_id
        raw = await self._ask("cdp.buffer", args)
        loader = raw.get("loaderId")
        return Buffer(
            _state(raw),
            list(raw.get("entries", ())),
            fresh=raw.get("recordingSince") == "now",
            loader_id=loader if isinstance(loader, str) else None,
        )

    async def shown_dialog(self, page_url: str, dialog: Dialog) -> Dialog:
        """The dialog as the model may read it: one a frame of a site Tabgate has no access to opened keeps
        its message back."""
        opener = site_of(dialog.url)
        if opener is None or opener == site_of(page_url) or opener in await self.granted([opener]):
            return dialog
        return replace(dialog, message="", default_prompt="", kept_back=opener)

    async def granted(self, origins: Sequence[str]) -> set[str]:
        if not origins:
            return set()
        try:
            raw = await self._browser.call(
                "cdp.grants", {"origins": list(origins)}, timeout_ms=self._timeout_ms
            )
        except BrowserToolError as error:
            raise RespondToModel(error.message) from None
        return set(raw.get("granted", ()))

    async def mask(
        self, data: str, mime_type: str, quality: int | None, width: float, rects: Sequence[tuple[float, ...]]
    ) -> str:
        """The image (base64) with each rect, in CSS pixels of a clip `width` wide, painted over in grey."""
        args = {"data": data, "mimeType": mime_type, "width": width, "rects": [list(r) for r in rects]}
        if quality is not None:
            args["quality"] = quality
        try:
            masked = await self._browser.call("cdp.mask", args, timeout_ms=self._timeout_ms)
        except BrowserToolError as error:
            raise RespondToModel(error.message) from None
        return str(masked["data"])

    async def legacy(self, tool: str, args: dict[str, Any]) -> Any:
        """One of the chrome.* executors that predate the debugger (tabs, history steps)."""
        return await self._ask(tool, args)
