"""A test MCP server whose catalogs change at run time, and that logs: `python live_server.py`.

`grow(name)` adds a tool `name` (it answers `grown:<name>`) and says its tool list changed; `touch(kind)` says
its resource or prompt list changed. It says so as a server of both eras does: a notification to an
initialize-era client, an event on a 2026-07-28 client's `subscriptions/listen` stream.
`say(level, text, count)` sends `count` log messages (notifications/message) with logger `live`.
`ask(question)` asks the person for an answer (form elicitation, in either era) and `visit(url)` sends them
to a page (URL elicitation); each answers with what came back. One prompt, `greet(name)`."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel, Field

mcp = MCPServer("live", version="1.0")


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool `name` at run time and tell the client its tool list changed."""

    def grown() -> str:
        return f"grown:{name}"

    mcp.add_tool(grown, name=name, title=f"Grown {name}", description=f"A tool added at run time: {name}.")
    await ctx.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.tool()
async def touch(kind: Literal["resources", "prompts"], ctx: Context) -> str:
    """Tell the client its resource or prompt list changed."""
    if kind == "resources":
        await ctx.session.send_resource_list_changed()
        await ctx.notify_resources_changed()
    else:
        await ctx.session.send_prompt_list_changed()
        await ctx.notify_prompts_changed()
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


def the_question(question: str) -> Elicit[Answer]:
    return Elicit(question, Answer)


@mcp.tool()
async def ask(question: str, answer: Annotated[ElicitationResult[Answer], Resolve(the_question)]) -> str:
    """Ask the person `question` through an elicitation form: an `elicitation/create` request to an
    initialize-era client, an `input_required` answer to a 2026-07-28 one (the SDK picks by the era)."""
    if isinstance(answer, AcceptedElicitation):
        return f"accept: {answer.data.answer} (sure: {answer.data.sure})"
    return answer.action


@mcp.tool()
async def visit(url: str, ctx: Context) -> str:
    """Ask the person to open `url` (URL elicitation: the SDK's server asks it of initialize-era clients
    only)."""
    result = await ctx.elicit_url("Open this page to finish", url, "visit-1")
    return result.action


@mcp.prompt()
def greet(name: str) -> str:
    """A greeting for `name`."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    mcp.run("stdio")
