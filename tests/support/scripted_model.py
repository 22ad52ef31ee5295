"""A scripted model behind a local HTTP server, for driving real agent CLIs: instead of a model's choices it
answers each request with the next step of a script (call a tool, or say something and stop), and records what
the client sent back (the tools it offered, the tool results), so tests can assert on what a model would have
seen. One core; the wire format of each model API is an adapter (tests/support/model_apis.py).

The step is chosen from the request alone (the number of tool results the conversation holds), so a client's
retries and side requests (titles, token counts) never move the script on."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Final, Protocol

from tests.support.local_site import serve

# Tools a client offers for waiting until its MCP servers are listed (Claude Code connects them in the
# background): called, as a model would, while a scripted tool is not offered yet.
WAIT_TOOLS: Final = ("WaitForMcpServers",)
MAX_WAITS: Final = 3
MAX_BODY: Final = 16 * 1024 * 1024  # a request larger than this is refused (every buffer bounded)
MAX_TURNS: Final = 200  # requests recorded at most
GATE_SECONDS: Final = 120.0


@dataclass(frozen=True)
class Call:
    """Call the tool whose name ends with `tool` (clients prefix MCP tools: `mcp__tabgate__…`, `tabgate_…`);
    `after`: answer only once the test sets it (the browser opened meanwhile)."""

    tool: str
    arguments: dict[str, Any]
    after: threading.Event | None = None


@dataclass(frozen=True)
class Say:
    text: str


type Step = Call | Say


@dataclass(frozen=True)
class Turn:
    """What one request carried, as the adapter read it."""

    offered: list[str]  # the tool names the client offered the model
    results: list[str]  # the text of every tool result in the conversation, in order
    stream: bool = True


class ModelApi(Protocol):
    """One model API's wire format."""

    def serves(self, path: str) -> bool: ...

    def read(self, path: str, body: dict[str, Any]) -> Turn: ...

    def reply(self, step: Step, tool: str | None, call_id: str, stream: bool) -> tuple[str, bytes]:
        """(content type, body) answering with `step`; `tool` is the offered name a Call resolved to."""
        ...

    def side_answer(self, path: str) -> dict[str, Any] | None:
        """The answer to a request that is not a model turn (a token count, a model list), if this is one."""
        ...


def offered_name(offered: list[str], tool: str) -> str | None:
    for name in offered:
        if name == tool or name.endswith(("__" + tool, "_" + tool, "." + tool)):
            return name
    return None


@dataclass
class ScriptedModel:
    api: ModelApi
    script: list[Step]
    turns: list[Turn] = field(default_factory=list)
    origin: str = ""
    first_result_at: float | None = None  # time.monotonic() when a tool result first came back
    waits: int = 0  # calls of a client's WAIT_TOOLS made so far (their results are not the script's)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_step(self, turn: Turn) -> tuple[Step, str | None]:
        with self._lock:
            if len(self.turns) < MAX_TURNS:
                self.turns.append(turn)
            if len(turn.results) > self.waits and self.first_result_at is None:
                self.first_result_at = time.monotonic()
            index = len(turn.results) - self.waits
            step = self.script[index] if 0 <= index < len(self.script) else Say("done")
            if isinstance(step, Say):
                return step, None
            name = offered_name(turn.offered, step.tool)
            waiting = next((tool for tool in WAIT_TOOLS if tool in turn.offered), None)
            if name is None and waiting is not None and self.waits < MAX_WAITS:
                self.waits += 1
                return Call(waiting, {}), waiting
        if name is None:  # the client did not offer it: stop, saying so (the test then fails on what it saw)
            return Say(f"no tool {step.tool} among {turn.offered}"), None
        if step.after is not None and not step.after.wait(GATE_SECONDS):
            return Say(f"the test never released {step.tool}"), None
        return step, name

    @property
    def results(self) -> list[str]:
        """The script's tool results in the longest conversation seen (the client sends them all back each
        turn); waits come first (servers connect at start), and are left out."""
        with self._lock:
            return max((turn.results for turn in self.turns), key=len, default=[])[self.waits :]

    @property
    def offered(self) -> list[str]:
        with self._lock:
            return max((turn.offered for turn in self.turns), key=len, default=[])


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, value: object) -> None:
            self._send(status, "application/json", json.dumps(value).encode())

        def do_GET(self) -> None:
            side = model.api.side_answer(self.path)
            self._json(200, side) if side is not None else self._json(404, {"error": "not here"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._json(413, {"error": f"request over {MAX_BODY} bytes"})
                return
            body = json.loads(self.rfile.read(length) or b"{}")
            side = model.api.side_answer(self.path)
            if side is not None:
                self._json(200, side)
                return
            if not model.api.serves(self.path):
                self._json(404, {"error": f"no model API at {self.path}"})
                return
            turn = model.api.read(self.path, body)
            step, tool = model.next_step(turn)
            content_type, answer = model.api.reply(step, tool, f"call_{len(turn.results)}", turn.stream)
            self._send(200, content_type, answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def scripted_model(api: ModelApi, script: list[Step]) -> Iterator[ScriptedModel]:
    """The model served on 127.0.0.1 while the block runs; its `origin` is set."""
    model = ScriptedModel(api, script)
    with serve(_handler(model)) as origin:
        model.origin = origin
        yield model


def sse(events: list[tuple[str | None, object]]) -> bytes:
    """Server-sent events: (event name or None, JSON data); a str datum is sent as it is (`[DONE]`)."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name is not None else ""
        out.append(f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
    return "".join(out).encode()
