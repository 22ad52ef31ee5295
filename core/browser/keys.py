"""Keys as data: the `Input.dispatchKeyEvent` commands that type a text or press a chord (US layout).

A printable character is keyDown (with its text, so the page gets keypress and input) and keyUp. Enter's
keyDown carries text "\\r": only then does it submit a form. Characters no key types (emoji, CJK) go in with
`Input.insertText`, which the page sees as an input event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.browser.executor import Command

MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
_MODIFIER_ALIASES = {"Ctrl": "Control", "Cmd": "Meta", "Command": "Meta", "Option": "Alt", "Super": "Meta"}


@dataclass(frozen=True, slots=True)
class Key:
    key: str
    code: str
    key_code: int
    text: str = ""
    shifted: bool = False  # typed with Shift held


def _build() -> dict[str, Key]:
    keys: dict[str, Key] = {}
    for c in "abcdefghijklmnopqrstuvwxyz":
        keys[c] = Key(c, f"Key{c.upper()}", ord(c.upper()), c)
        keys[c.upper()] = Key(c.upper(), f"Key{c.upper()}", ord(c.upper()), c.upper(), shifted=True)
    for i, (digit, shifted) in enumerate(zip("0123456789", ")!@#$%^&*(", strict=True)):
        keys[digit] = Key(digit, f"Digit{digit}", 48 + i, digit)
        keys[shifted] = Key(shifted, f"Digit{digit}", 48 + i, shifted, shifted=True)
    punctuation = [
        (" ", None, "Space", 32),
        ("-", "_", "Minus", 189),
        ("=", "+", "Equal", 187),
        ("[", "{", "BracketLeft", 219),
        ("]", "}", "BracketRight", 221),
        ("\\", "|", "Backslash", 220),
        (";", ":", "Semicolon", 186),
        ("'", '"', "Quote", 222),
        (",", "<", "Comma", 188),
        (".", ">", "Period", 190),
        ("/", "?", "Slash", 191),
        ("`", "~", "Backquote", 192),
    ]
    for plain, shifted_char, code, key_code in punctuation:
        keys[plain] = Key(plain, code, key_code, plain)
        if shifted_char is not None:
            keys[shifted_char] = Key(shifted_char, code, key_code, shifted_char, shifted=True)
    named = [
        ("Enter", "Enter", 13, "\r"),
        ("Tab", "Tab", 9, ""),
        ("Backspace", "Backspace", 8, ""),
        ("Delete", "Delete", 46, ""),
        ("Escape", "Escape", 27, ""),
        ("ArrowUp", "ArrowUp", 38, ""),
        ("ArrowDown", "ArrowDown", 40, ""),
        ("ArrowLeft", "ArrowLeft", 37, ""),
        ("ArrowRight", "ArrowRight", 39, ""),
        ("Home", "Home", 36, ""),
        ("End", "End", 35, ""),
        ("PageUp", "PageUp", 33, ""),
        ("PageDown", "PageDown", 34, ""),
        ("Insert", "Insert", 45, ""),
        ("Space", "Space", 32, " "),
        ("Shift", "ShiftLeft", 16, ""),
        ("Control", "ControlLeft", 17, ""),
        ("Alt", "AltLeft", 18, ""),
        ("Meta", "MetaLeft", 91, ""),
    ]
    for name, code, key_code, text in named:
        keys[name] = Key(" " if name == "Space" else name, code, key_code, text)
    for n in range(1, 13):
        keys[f"F{n}"] = Key(f"F{n}", f"F{n}", 111 + n)
    keys["\n"] = keys["\r"] = keys["Enter"]
    keys["\t"] = keys["Tab"]
    return keys


KEYS = _build()


class UnknownKey(ValueError):
    """A key name or chord that this keyboard does not have."""


def _down(key: Key, modifiers: int, session: str | None, *, with_next: bool = False) -> Command:
    params: dict[str, object] = {
        "type": "keyDown" if key.text else "rawKeyDown",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
    }
    # With Control, Alt or Meta held a key types nothing (it is a shortcut); Shift only picks the character.
    if key.text and not modifiers & ~MODIFIER_BITS["Shift"]:
        params["text"] = key.text
        params["unmodifiedText"] = key.text
    else:
        params["type"] = "rawKeyDown"
    return Command("Input.dispatchKeyEvent", params, session, with_next=with_next)


def _up(key: Key, modifiers: int, session: str | None) -> Command:
    params = {
        "type": "keyUp",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
    }
    return Command("Input.dispatchKeyEvent", params, session)


def type_text(text: str, session: str | None) -> list[Command]:
    """The commands that type `text` key by key ("\\n" presses Enter)."""
    commands: list[Command] = []
    for char in text:
        key = KEYS.get(char)
        if key is None or len(char) != 1:
            commands.append(Command("Input.insertText", {"text": char}, session))
            continue
        modifiers = MODIFIER_BITS["Shift"] if key.shifted else 0
        commands += [_down(key, modifiers, session, with_next=True), _up(key, modifiers, session)]
    return commands


def press_chord(chord: str, session: str | None) -> list[Command]:
    """`Control+a`, `Shift+Tab`, `Enter`, `a`: modifiers down in order, the key down and up, modifiers up."""
    if chord == "+" or chord.endswith("++"):
        head, last = chord[:-2], "+"
    else:
        head, _, last = chord.rpartition("+")
    modifier_names = [_MODIFIER_ALIASES.get(p, p) for p in head.split("+")] if head else []
    last = _MODIFIER_ALIASES.get(last, last)
    for name in modifier_names:
        if name not in MODIFIER_BITS:
            raise UnknownKey(
                f"unknown modifier {name!r} in {chord!r}; modifiers are Control, Shift, Alt, Meta"
            )
    key = KEYS.get(last) or KEYS.get(last.lower() if len(last) == 1 else last)
    if key is None:
        raise UnknownKey(
            f"unknown key {last!r} in {chord!r}; use a character or a key name such as Enter, Tab, Escape, "
            "Backspace, Delete, ArrowUp, Home, End, PageDown, F5"
        )
    commands: list[Command] = []
    held = 0
    for name in modifier_names:
        held |= MODIFIER_BITS[name]
        commands.append(_down(KEYS[name], held, session))
    with_shift = held | (MODIFIER_BITS["Shift"] if key.shifted else 0)  # "+" is Shift+Equal
    commands += [_down(key, with_shift, session), _up(key, with_shift, session)]
    for name in reversed(modifier_names):
        held &= ~MODIFIER_BITS[name]
        commands.append(_up(KEYS[name], held, session))
    return commands


def clipboard_use(chord: str) -> Literal["paste", "copy"] | None:
    """What pressing `chord` does with the person's clipboard: "paste" puts it into the page (V with Control
    or Meta held, Insert with Shift), which then reads what the person copied; "copy" writes it (C or X with
    Control or Meta, Insert with Control, Delete with Shift) with what the page chose to select, over what the
    person copied. No site question covers either. An unknown chord does neither (pressing it is refused for
    that)."""
    try:
        commands = press_chord(chord, None)
    except UnknownKey:
        return None
    main = [c.params for c in commands if c.params["type"] in ("keyDown", "rawKeyDown")][-1]
    held = int(str(main["modifiers"]))
    key = str(main["key"])
    command_key = bool(held & (MODIFIER_BITS["Control"] | MODIFIER_BITS["Meta"]))
    if (key.lower() == "v" and command_key) or (key == "Insert" and held & MODIFIER_BITS["Shift"]):
        return "paste"
    if key.lower() in ("c", "x") and command_key:
        return "copy"
    if (key == "Insert" and held & MODIFIER_BITS["Control"]) or (
        key == "Delete" and held & MODIFIER_BITS["Shift"]
    ):
        return "copy"
    return None
