"""A hand-written MCP server over stdio (standard library only) for the host's bounds.

Tools: `blob {mib, tag}` answers `tag:` + `mib` MiB of text in one message; `endless` starts an answer and
never ends its line (it stops at 512 MiB, so a host without a cap hangs instead of eating the machine);
`huge` answers one message of 65 MiB; `roots` asks the client for its roots (`roots/list`, whatever the
client declared) and answers with the client's answer as JSON. At start it writes RAW_TATTLE (a configured
secret) to stderr, as a careless server logging its token would."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

MIB = 1024 * 1024
out = sys.stdout.buffer
NUMBER = {"type": "object", "properties": {"mib": {"type": "number"}, "tag": {"type": "string"}}}
TOOLS = [
    {"name": "blob", "inputSchema": NUMBER},
    {"name": "endless", "inputSchema": {"type": "object"}},
    {"name": "huge", "inputSchema": {"type": "object"}},
    {"name": "roots", "inputSchema": {"type": "object"}},
]


def send(message: dict[str, Any]) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def text_result(request_id: Any, text: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})


def endless(request_id: Any) -> None:
    out.write(
        b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"'
        % json.dumps(request_id).encode()
    )
    piece = b"x" * MIB
    for _ in range(512):
        out.write(piece)
        out.flush()
    time.sleep(3600)


def ask_roots(request_id: Any) -> None:
    send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
    for line in sys.stdin.buffer:  # the client's answer; nothing else comes meanwhile in these tests
        answer = json.loads(line)
        if answer.get("id") == "roots-1" and "method" not in answer:
            text_result(request_id, json.dumps({k: answer[k] for k in ("result", "error") if k in answer}))
            return


def main() -> None:
    sys.stderr.write(f"raw server starting; token {os.environ.get('RAW_TATTLE', '-')}\n")
    sys.stderr.flush()
    for line in sys.stdin.buffer:
        message = json.loads(line)
        request_id, method = message.get("id"), message.get("method")
        if request_id is None or method is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        elif method == "tools/call":
            name, args = params.get("name"), params.get("arguments") or {}
            if name == "blob":
                text_result(request_id, f"{args.get('tag', '')}:" + "x" * int(args["mib"] * MIB))
            elif name == "endless":
                endless(request_id)
            elif name == "roots":
                ask_roots(request_id)
            elif name == "huge":
                text_result(request_id, "y" * (65 * MIB))
            else:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "error": {"code": -32602, "message": f"no tool {name}"},
                    }
                )
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "method not found"}}
            )


if __name__ == "__main__":
    main()
