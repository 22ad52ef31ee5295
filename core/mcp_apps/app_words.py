"""What the person is asked when an MCP App's View wants something done (core/mcp_apps/app_bridge.py): who
asks, and
what happens, in plain words. Titles and arguments come from the server: shown as text, never as markup."""

from __future__ import annotations

from typing import Any

from core.agents.plain_words import call_words
from core.tools.tool_facts import title_of


def call_question(app: dict[str, Any], target: dict[str, Any], arguments: dict[str, Any]) -> str:
    words = call_words(target["name"], None, arguments, mcp=True)
    return (
        f"The App of “{title_of(app)}” ({app['server']}) wants to {words} (“{title_of(target)}”). Allow it?"
    )


def link_question(app: dict[str, Any], url: str) -> str:
    return f"The App of “{title_of(app)}” ({app['server']}) wants to open {url} in a new tab. Open it?"
