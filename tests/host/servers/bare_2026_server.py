"""A hand-written MCP server of 2026-07-28 only whose results never say `resultType` (the spec: absent means
"complete"); the SDK's servers always write it, so this one is written by hand (standard library only):
`python bare_2026_server.py http PORT`.

Stateless HTTP at /mcp, JSON answers only. A POST whose MCP-Protocol-Version header does not name 2026-07-28
(an `initialize`) is refused: HTTP 400, -32020. It answers `server/discover`, `tools/list` (tool `echo`) and
`tools/call`; anything else is -32601 (so `subscriptions/listen` is refused, which a client must survive)."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2026-07-28"
CACHE = {"ttlMs": 0, "cacheScope": "private"}  # required by 2026-07-28 where they appear, unlike resultType
ECHO = {
    "name": "echo",
    "description": "Return the text.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}


def result(method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The result of `method`, never with a `resultType`; None when the method is unknown."""
    if method == "server/discover":
        info = {"name": "bare-2026", "version": "1"}
        return {"supportedVersions": [VERSION], "capabilities": {"tools": {}}, "serverInfo": info, **CACHE}
    if method == "tools/list":
        return {"tools": [ECHO], **CACHE}
    if method == "tools/call" and params.get("name") == "echo":
        text = str((params.get("arguments") or {}).get("text", ""))
        return {"content": [{"type": "text", "text": text}], "isError": False}
    return None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(length) or b"{}")
        request_id, method = message.get("id"), message.get("method", "")
        if self.path != "/mcp":
            return self.answer(404, None)
        if self.headers.get("MCP-Protocol-Version") != VERSION:
            error = {"code": -32020, "message": "Missing MCP-Protocol-Version header"}
            return self.answer(400, {"jsonrpc": "2.0", "id": request_id, "error": error})
        if request_id is None:  # a notification
            return self.answer(202, None)
        answer = result(method, message.get("params") or {})
        if answer is None:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            return self.answer(200, {"jsonrpc": "2.0", "id": request_id, "error": error})
        self.answer(200, {"jsonrpc": "2.0", "id": request_id, "result": answer})

    def answer(self, status: int, body: dict[str, Any] | None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the tests read what the host says


if __name__ == "__main__":
    if sys.argv[1:2] != ["http"]:
        raise SystemExit("usage: bare_2026_server.py http PORT")
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
