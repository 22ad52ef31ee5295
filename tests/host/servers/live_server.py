"""A test MCP server whose catalogs change at run time, and that logs: `python live_server.py`.

`grow(name)` adds a tool `name` (it answers `grown:<name>`) and sends notifications/tools/list_changed;
`touch(kind)` sends notifications/resources/list_changed or notifications/prompts/list_changed;
`say(level, text, count)` sends `count` log messages (notifications/message) with logger `live`.
`ask(question)` asks the person for an answer (form elicitation) and `visit(url)` sends them to a page
(URL elicitation); each answers with what came back. One prompt, `greet(name)`."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("live", version="1.0")


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool `name` at run time and tell the client its tool list changed."""

    def grown() -> str:
        return f"grown:{name}"

    mcp.add_tool(grown, name=name, title=f"Grown {name}", description=f"A tool added at run time: {name}.")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


@mcp.tool()
async def touch(kind: Literal["resources", "prompts"], ctx: Context) -> str:
    """Tell the client its resource or prompt list changed."""
    if kind == "resources":
        await ctx.session.send_resource_list_changed()
    else:
        await ctx.session.send_prompt_list_changed()
    return f"touched {kind}"


@mcp.tool()
async def say(
    level: Literal["debug", "info", "warning", "error"], text: str, ctx: Context, count: int = 1
) -> str:
    """Send `count` log messages `text #i` at `level`."""
    for index in range(count):
        await ctx.session.send_log_message(level=level, data=f"{text} #{index}", logger="live")
    return f"said {count}"


class Answer(BaseModel):
    answer: str = Field(description="What you answer")
    sure: bool = Field(default=False, description="Whether you are sure")


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    """Ask the person `question` through an elicitation form."""
    result = await ctx.elicit(question, Answer)
    if result.action == "accept":
        return f"accept: {result.data.answer} (sure: {result.data.sure})"
    return result.action


@mcp.tool()
async def visit(url: str, ctx: Context) -> str:
    """Ask the person to open `url` (URL elicitation)."""
    result = await ctx.elicit_url("Open this page to finish", url, "visit-1")
    return result.action


@mcp.prompt()
def greet(name: str) -> str:
    """A greeting for `name`."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    mcp.run("stdio")
