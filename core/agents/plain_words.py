"""An agent's call in plain words, for the person (contract §9): what the popup shows of a question or a
running call, and what an agent is told when its request is denied ("The user denied the request to …").

`program_words` and `not_trustable_words` say which program an agent is and, for an interpreter that runs no
file Tabgate can name, why it cannot act without asking (contract §8.2).

`call_words` says what the call does: a browser action in the words its declaration gives
(core/browser/actions.py), any other tool with its arguments; `placed` adds the tab and the site. Any
argument of any type is shown as text, cut to a readable length; nothing here is markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.browser.action_words import MAX_LISTED, quoted
from core.browser.tool_table import declared

type Args = Mapping[str, Any]


def _arguments(args: Args) -> str:
    shown = [f"{key}={quoted(value)}" for key, value in list(args.items())[:MAX_LISTED]]
    more = f" and {len(args) - MAX_LISTED} more" if len(args) > MAX_LISTED else ""
    return f" with {', '.join(shown)}{more}" if shown else ""


def call_words(tool: str, action: str | None, args: Args, *, mcp: bool = False) -> str:
    """What the call does, in plain words."""
    browser = declared(tool, action)
    if browser is not None:
        return browser.words(args)
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


def summarize(
    tool: str,
    action: str | None,
    arguments: Mapping[str, Any],
    *,
    tab: tuple[int, str | None] | None = None,
    site: str | None = None,
    mcp: bool = False,
    unknown_destination: bool = False,
) -> str:
    """The question in plain words: what the call does, with its arguments, in which tab, on which site."""
    summary = placed(call_words(tool, action, arguments, mcp=mcp), tab, site)
    if unknown_destination:
        summary += " (to whatever page the tab's history holds, which may be another site)"
    return summary
