"""An agent's call in plain words, for the person (contract §9): what the popup shows of a question or a
running call, and what an agent is told when its request is denied ("The user denied the request to …").

`program_words` and `not_trustable_words` say which program an agent is and, for an interpreter that runs no
file Tabgate can name, why it cannot act without asking (contract §8.2).

`call_words` says what the call does and to which element, with its arguments as the person would say them
("type “ada” into the element e5 and press Enter"); `placed` adds the tab and the site. Any argument of any
type is shown as text, cut to a readable length; nothing here is markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

MAX_VALUE = 60
MAX_LISTED = 4

type Args = Mapping[str, Any]


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


def _on(args: Args) -> str:
    target = element(args)
    return f" on {target}" if target else ""


def _click(args: Args) -> str:
    verb = {2: "double-click", 3: "triple-click"}.get(args.get("clickCount", 1), "click")
    if args.get("button") == "right":
        verb = "right-click"
    held = args.get("modifiers")
    holding = f" holding {'+'.join(map(str, held))}" if isinstance(held, list) and held else ""
    return f"{verb} {element(args)}{holding}"


def _type(args: Args) -> str:
    into = element(args)
    words = f"type {quoted(args.get('text', ''))}" + (f" into {into}" if into else "")
    if args.get("clear") is True:
        words += ", replacing what it holds"
    return words + (" and press Enter" if args.get("submit") is True else "")


def _fill_form(args: Args) -> str:
    fields = args.get("fields")
    fields = fields if isinstance(fields, list) else []
    shown = [
        f"{element(field) or 'a field'} = {quoted(field.get('value'))}"
        for field in fields[:MAX_LISTED]
        if isinstance(field, dict)
    ]
    more = f" and {len(fields) - MAX_LISTED} more" if len(fields) > MAX_LISTED else ""
    return f"fill in {len(fields)} field(s): {'; '.join(shown)}{more}"


def _dialog(args: Args) -> str:
    if args.get("accept") is False:
        return "dismiss the page's dialog"
    answer = f", answering {quoted(args['promptText'])}" if isinstance(args.get("promptText"), str) else ""
    return f"accept the page's dialog{answer}"


def _scroll(args: Args) -> str:
    target = element(args)
    if target:
        return f"scroll {target} into view"
    return "scroll the page to " + ", ".join(f"{key}={args[key]}" for key in ("x", "y") if key in args)


def _wait_for(args: Args) -> str:
    if isinstance(args.get("text"), str):
        return f"wait until {quoted(args['text'])} appears"
    if isinstance(args.get("textGone"), str):
        return f"wait until {quoted(args['textGone'])} is gone"
    return f"wait until {element(args)} is there"


def _storage(verb: str) -> Callable[[Args], str]:
    def words(args: Args) -> str:
        keys = args.get("keys")
        items = args.get("items")
        names = list(items) if isinstance(items, dict) else keys
        return (
            f"{verb} {listed(names)} in Tabgate's tool storage" if names else f"{verb} Tabgate's tool storage"
        )

    return words


def _fixed(words: str) -> Callable[[Args], str]:
    return lambda _args: words


# (tool, action) → what the call does. Tab-wide actions say "the tab"; `where` names which one.
PHRASES: dict[tuple[str, str | None], Callable[[Args], str]] = {
    ("browser_dom", "click"): _click,
    ("browser_dom", "hover"): lambda a: f"move the mouse over {element(a)}",
    ("browser_dom", "type"): _type,
    ("browser_dom", "press"): lambda a: f"press {quoted(a.get('key', ''))}{_on(a)}",
    ("browser_dom", "select"): lambda a: f"choose {listed(a.get('values', []))} in {element(a)}",
    ("browser_dom", "check"): lambda a: f"{'uncheck' if a.get('checked') is False else 'check'} {element(a)}",
    ("browser_dom", "fill_form"): _fill_form,
    ("browser_dom", "drag"): lambda a: f"drag {element(a)} onto {element(a, 'toRef', 'toSelector')}",
    ("browser_dom", "upload"): lambda a: f"upload {listed(a.get('paths', []))} into {element(a)}",
    ("browser_dom", "dialog"): _dialog,
    ("browser_dom", "scroll"): _scroll,
    ("browser_dom", "wait_for"): _wait_for,
    ("browser_navigation", "navigate"): lambda a: f"go to {quoted(a.get('url', ''))}",
    ("browser_navigation", "reload"): _fixed("reload the page"),
    ("browser_navigation", "back"): _fixed("go back a page"),
    ("browser_navigation", "forward"): _fixed("go forward a page"),
    ("browser_navigation", "current_url"): _fixed("read the page's address"),
    ("browser_navigation", "wait_for_load"): _fixed("wait for the page to load"),
    ("browser_tab", "query"): _fixed("list its tabs"),
    ("browser_tab", "create"): lambda a: (
        f"open a new tab at {quoted(a['url'])}" if "url" in a else "open a new tab"
    ),
    ("browser_tab", "close"): _fixed("close the tab"),
    ("browser_tab", "activate"): _fixed("bring the tab to the front"),
    ("browser_tab", "update"): lambda a: (
        f"load {quoted(a['url'])} in the tab" if "url" in a else "change the tab"
    ),
    ("browser_page", "snapshot"): _fixed("read the page's outline"),
    ("browser_page", "find"): lambda a: f"find {quoted(a.get('text', a.get('regex', '')))} on the page",
    ("browser_devtools", "console"): _fixed("read the page's console messages"),
    ("browser_devtools", "network"): _fixed("read the page's network requests"),
    ("browser_devtools", "request"): lambda a: f"read the network request {quoted(a.get('id', ''))}",
    ("browser_screenshot", None): _fixed("take a screenshot of the page"),
    ("browser_screenshot", "capture"): _fixed("take a screenshot of the page"),
    ("browser_storage", "get"): _storage("read"),
    ("browser_storage", "keys"): _fixed("list the keys of Tabgate's tool storage"),
    ("browser_storage", "set"): _storage("store"),
    ("browser_storage", "remove"): _storage("remove"),
}


def _arguments(args: Args) -> str:
    shown = [f"{key}={quoted(value)}" for key, value in list(args.items())[:MAX_LISTED]]
    more = f" and {len(args) - MAX_LISTED} more" if len(args) > MAX_LISTED else ""
    return f" with {', '.join(shown)}{more}" if shown else ""


def call_words(tool: str, action: str | None, args: Args, *, mcp: bool = False) -> str:
    """What the call does, in plain words."""
    phrase = PHRASES.get((tool, action))
    if phrase is not None:
        return phrase(args)
    if tool == "browser_page" and action is not None:
        return f"read the page's {action}"  # title, url, text, html, links
    rest = {key: value for key, value in args.items() if key != "action"}
    what = f"{tool} {action}" if action is not None else tool
    return f"run the {'MCP tool' if mcp else 'tool'} {what}{_arguments(rest)}"


def tab_words(tab_id: int, title: str | None) -> str:
    return f"tab {tab_id}" + (f" {quoted(title)}" if title else "")


def placed(words: str, tab: tuple[int, str | None] | None, site: str | None) -> str:
    """`words` with the tab and site: "bring tab 7 “Cart” to the front on https://shop.example" for what acts
    on the tab itself, "click the element e5 in tab 7 “Cart” on …" for what acts inside it."""
    if tab is not None and "the tab" in words:
        words = words.replace("the tab", tab_words(*tab), 1)
    elif tab is not None:
        words += f" in {tab_words(*tab)}"
    return words + (f" on {site}" if site else "")


# What an interpreter runs, after the interpreter's path (`kind` as core/agents/identity.py `Runs` has it).
_RUNS: dict[str, str] = {
    "module": "-m {target}",
    "inline": "(code given on its command line)",
    "none": "(no script file)",
    "relative": "{target} (named by a relative path)",
    "unread": "(with options Tabgate does not read: {target})",
}

# Why such an agent is never trusted to act without asking.
_NOT_TRUSTABLE: dict[str, str] = {
    "module": "it runs the module “{target}”, which is looked up on a search path that starts in its working "
    "folder, so the name does not say which file runs",
    "inline": "it runs code given on its command line, not a file, as any program could",
    "none": "it runs no script file",
    "relative": "its script was named by a relative path, and the folder it was relative to may have changed "
    "since it started; start it with the script's full path to trust it",
    "unread": "its command line has options Tabgate does not read ({target}), so which file runs is not sure",
}


def program_words(executable: str, kind: str | None, target: str) -> str:
    """The agent's program as the person reads it: `/usr/bin/node /home/ada/agent.mjs`, `/usr/bin/codex`."""
    if kind is None:
        return executable
    if kind == "script":
        return f"{executable} {target}"
    return f"{executable} {_RUNS[kind].format(target=target)}"


def not_trustable_words(executable: str, kind: str, target: str) -> str | None:
    """Why an interpreter agent cannot be trusted, or None when it runs a script file (which can be)."""
    if kind == "script":
        return None
    why = _NOT_TRUSTABLE[kind].format(target=target)
    interpreter = executable.rsplit("/", 1)[-1]
    return (
        f"Cannot act without asking: it is the interpreter {interpreter} and {why}. Trusting it would trust "
        f"every program {interpreter} runs that way."
    )
