"""Each browser action in plain words, for the person (contract §9): "type “ada” into the element e5 and
press Enter". The declarations (`actions.py`) name these; any argument of any type is shown as text, cut to a
readable length; nothing here is markup."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

MAX_VALUE = 60
MAX_LISTED = 4

type Args = Mapping[str, Any]
type Words = Callable[[Args], str]


def quoted(value: object) -> str:
    """A value as the person reads it: text in quotes, anything else as compact JSON, cut to MAX_VALUE."""
    text = f"“{value}”" if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def listed(values: object) -> str:
    items = list(values) if isinstance(values, list) else [values]
    shown = ", ".join(quoted(item) for item in items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def element(args: Args, ref: str = "ref", selector: str = "selector") -> str:
    if isinstance(args.get(ref), str):
        return f"the element {args[ref]}"
    if isinstance(args.get(selector), str):
        return f"the element matching {quoted(args[selector])}"
    return ""


def fixed(words: str) -> Words:
    return lambda _args: words


def on(args: Args) -> str:
    target = element(args)
    return f" on {target}" if target else ""


def click(args: Args) -> str:
    verb = {2: "double-click", 3: "triple-click"}.get(args.get("clickCount", 1), "click")
    if args.get("button") == "right":
        verb = "right-click"
    held = args.get("modifiers")
    holding = f" holding {'+'.join(map(str, held))}" if isinstance(held, list) and held else ""
    return f"{verb} {element(args)}{holding}"


def type_(args: Args) -> str:
    into = element(args)
    words = f"type {quoted(args.get('text', ''))}" + (f" into {into}" if into else "")
    if args.get("clear") is True:
        words += ", replacing what it holds"
    return words + (" and press Enter" if args.get("submit") is True else "")


def fill_form(args: Args) -> str:
    fields = args.get("fields")
    fields = fields if isinstance(fields, list) else []
    shown = [
        f"{element(field) or 'a field'} = {quoted(field.get('value'))}"
        for field in fields[:MAX_LISTED]
        if isinstance(field, dict)
    ]
    more = f" and {len(fields) - MAX_LISTED} more" if len(fields) > MAX_LISTED else ""
    return f"fill in {len(fields)} field(s): {'; '.join(shown)}{more}"


def dialog(args: Args) -> str:
    if args.get("accept") is False:
        return "dismiss the page's dialog"
    answer = f", answering {quoted(args['promptText'])}" if isinstance(args.get("promptText"), str) else ""
    return f"accept the page's dialog{answer}"


def scroll(args: Args) -> str:
    target = element(args)
    if target:
        return f"scroll {target} into view"
    return "scroll the page to " + ", ".join(f"{key}={args[key]}" for key in ("x", "y") if key in args)


def wait_for(args: Args) -> str:
    if isinstance(args.get("text"), str):
        return f"wait until {quoted(args['text'])} appears"
    if isinstance(args.get("textGone"), str):
        return f"wait until {quoted(args['textGone'])} is gone"
    return f"wait until {element(args)} is there"


def storage(verb: str) -> Words:
    def words(args: Args) -> str:
        keys = args.get("keys")
        items = args.get("items")
        names = list(items) if isinstance(items, dict) else keys
        return (
            f"{verb} {listed(names)} in Tabgate's tool storage" if names else f"{verb} Tabgate's tool storage"
        )

    return words
