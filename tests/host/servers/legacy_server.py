"""An initialize-only MCP server, hand-written: `python legacy_server.py [stdio | http PORT | sse PORT]`.

It speaks the 2025-11-25 handshake and nothing newer, and like many servers of that era it ignores requests it
does not know before `initialize` (it never answers them): the worst case for the 2026-07-28 `server/discover`
probe of `handshake = "auto"`. Tool: `echo {text}`. `http-wrong-resource PORT`: streamable HTTP that asks
for OAuth (401) and names, in its protected-resource metadata, a resource other than itself (which the client
refuses)."""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

TOOLS = [
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }
]


class Session:
    def __init__(self) -> None:
        self.initialized = False

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The response to one message, or None (a notification, or a request this server ignores)."""
        request_id, method = message.get("id"), message.get("method")
        if request_id is None or method is None:
            return None
        params = message.get("params") or {}
        if method == "initialize":
            self.initialized = True
            result: dict[str, Any] = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            }
        elif not self.initialized:
            return None  # ignored, as an initialize-only server does
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "ping":
            result = {}
        elif method == "tools/call":
            text = (params.get("arguments") or {}).get("text", "")
            result = {"content": [{"type": "text", "text": text}]}
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            return {"jsonrpc": "2.0", "id": request_id, "error": error}
        return {"jsonrpc": "2.0", "id": request_id, "result": result}


def stdio() -> None:
    session = Session()
    for line in sys.stdin.buffer:
        reply = session.answer(json.loads(line))
        if reply is not None:
            sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
            sys.stdout.buffer.flush()


def web(mode: str, port: int) -> None:
    import anyio
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    sessions: dict[str, Session] = {}
    queues: dict[str, Any] = {}

    async def mcp(request: Request) -> Response:
        if mode == "http-wrong-resource":
            metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource"
            return Response(
                status_code=401, headers={"www-authenticate": f'Bearer resource_metadata="{metadata}"'}
            )
        if request.method != "POST":
            return Response(status_code=405)
        message = await request.json()
        session_id = request.headers.get("mcp-session-id")
        if message.get("method") == "initialize":
            session_id = uuid.uuid4().hex
            sessions[session_id] = Session()
        session = sessions.get(session_id or "") or Session()
        reply = session.answer(message)
        if reply is None:
            if "id" in message:
                await anyio.sleep_forever()  # ignored: the request never gets an answer
            return Response(status_code=202)
        headers = {"mcp-session-id": session_id} if session_id else {}
        return JSONResponse(reply, headers=headers)

    async def sse(request: Request) -> Response:
        session_id = uuid.uuid4().hex
        sessions[session_id] = Session()
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        queues[session_id] = send

        async def events() -> Any:
            yield f"event: endpoint\ndata: /messages?session_id={session_id}\n\n"
            async with receive:
                async for reply in receive:
                    yield f"event: message\ndata: {json.dumps(reply)}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def messages(request: Request) -> Response:
        session_id = request.query_params.get("session_id", "")
        if session_id not in sessions:
            return Response(status_code=404)
        reply = sessions[session_id].answer(await request.json())
        if reply is not None:
            await queues[session_id].send(reply)
        return Response(status_code=202)

    async def resource_metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "resource": "https://elsewhere.example/mcp",
                "authorization_servers": [f"http://127.0.0.1:{port}"],
            }
        )

    routes = (
        [
            Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
            Route("/.well-known/oauth-protected-resource", resource_metadata),
            Route("/.well-known/oauth-protected-resource/mcp", resource_metadata),
        ]
        if mode.startswith("http")
        else [Route("/sse", sse), Route("/messages", messages, methods=["POST"])]
    )
    uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        stdio()
    else:
        web(mode, int(sys.argv[2]))
