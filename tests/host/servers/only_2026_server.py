"""An MCP server that speaks only 2026-07-28, written with the SDK: `python only_2026_server.py http PORT`.

Stateless streamable HTTP at /mcp. A request that does not name a 2026-07-28 protocol version in its
`MCP-Protocol-Version` header (an `initialize`, say) is refused as such servers refuse it: HTTP 400, JSON-RPC
error -32020. What it serves, each asking for input the 2026 way (an `input_required` answer, then the
client's retry with the answers and the echoed `requestState`):
- tool `echo(text)`; tool `confirm(question)` asks the person (form elicitation); tool `grow(name)` adds a
  tool `name` and says so on `subscriptions/listen` streams; tool `draw()` asks for sampling (which a client
  may refuse); tool `folders()` asks for the client's roots and answers with them, `uri name` a line.
- prompt `greet()`: asks the person's name first;
- resource template `vault://{item}`: asks for a passphrase first.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import mcp_types as types
import uvicorn
from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve
from mcp.server.mcpserver.resolve import Sample
from pydantic import BaseModel, Field

VERSION = "2026-07-28"
STATE = "opaque-state-1"  # the requestState the retry must echo, byte for byte

mcp = MCPServer("only-2026", version="1.0")


class Answer(BaseModel):
    answer: str = Field(description="Your answer")


def the_question(question: str) -> Elicit[Answer]:
    return Elicit(question, Answer)


@mcp.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@mcp.tool()
async def confirm(question: str, answer: Annotated[ElicitationResult[Answer], Resolve(the_question)]) -> str:
    """Ask the person `question`; answer with what they said."""
    if isinstance(answer, AcceptedElicitation):
        return f"accept: {answer.data.answer}"
    return answer.action


def a_poem() -> Sample:
    return Sample(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Write a poem"))],
        max_tokens=50,
    )


@mcp.tool()
async def draw(poem: Annotated[types.CreateMessageResult, Resolve(a_poem)]) -> str:
    """Ask the client's model for a poem (sampling)."""
    return str(poem.content)


def the_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
async def folders(roots: Annotated[types.ListRootsResult, Resolve(the_roots)]) -> str:
    """The client's roots (the folders it lets this server use), `uri name` a line."""
    return "\n".join(f"{root.uri} {root.name}" for root in roots.roots)


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool `name` and tell `subscriptions/listen` streams the tool list changed."""

    def grown() -> str:
        return f"grown:{name}"

    mcp.add_tool(grown, name=name, description=f"A tool added at run time: {name}.")
    await ctx.notify_tools_changed()
    return f"added {name}"


def ask(key: str, message: str, field: str) -> types.InputRequiredResult:
    schema: Any = {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=schema)
    )
    return types.InputRequiredResult(input_requests={key: question}, request_state=STATE)


def answered(ctx: Context, key: str, field: str) -> str | None:
    """The accepted answer to `key`, when this retry carries it and echoes the state; else None."""
    response = (ctx.input_responses or {}).get(key)
    if ctx.request_state != STATE or not isinstance(response, types.ElicitResult):
        return None
    if response.action != "accept" or response.content is None:
        return None
    return str(response.content.get(field))


@mcp.prompt()
def greet(ctx: Context) -> str | types.InputRequiredResult:
    """Greet the person by the name they give."""
    name = answered(ctx, "name", "name")
    return ask("name", "What is your name?", "name") if name is None else f"Hello, {name}!"


@mcp.resource("vault://{item}", mime_type="text/plain")
def vault(item: str, ctx: Context) -> str | types.InputRequiredResult:
    """An item of the vault, once the person gives the passphrase."""
    passphrase = answered(ctx, "passphrase", "passphrase")
    if passphrase is None:
        return ask("passphrase", f"Passphrase for {item}?", "passphrase")
    return f"{item} opened with {passphrase}"


class OnlyModern:
    """Refuses every request whose MCP-Protocol-Version header does not name 2026-07-28."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if scope["type"] == "http" and headers.get(b"mcp-protocol-version") != VERSION.encode():
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {
                        "code": types.HEADER_MISMATCH,
                        "message": "Missing MCP-Protocol-Version header",
                    },
                }
            ).encode()
            start = {"type": "http.response.start", "status": 400}
            start["headers"] = [(b"content-type", b"application/json")]
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


if __name__ == "__main__":
    if sys.argv[1:2] != ["http"]:
        raise SystemExit("usage: only_2026_server.py http PORT")
    app = mcp.streamable_http_app(stateless_http=True)
    uvicorn.run(OnlyModern(app), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
