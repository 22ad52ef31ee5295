"""A hostile peer that passes the host's identity check: put on PYTHONPATH of `tabgate-host mcp`, it runs
before the real script (so the command line is exactly `<python> <tabgate-host> mcp`), plays a peer on the
gateway socket as TG_IMPOSTOR says (first changing to the folder TG_CHDIR, if given), and exits without ever
running `tabgate-host mcp`.

- `silent`: connect, say nothing; print how long until the host closed the connection.
- `flood`: hello, then send TG_COUNT `tools/list` requests without reading; on a line on stdin, read every
  answer and print how many came.
- `idle`: open TG_COUNT connections and hello on each; print how many were accepted; on a line on stdin,
  print how many the host has closed since.
- `waiting`: open TG_COUNT connections, each saying hello and then making one `tools/call` (one the browser
  leaves waiting, as a question to the person does); print how many were accepted; stay until stdin closes.
"""

import json
import os
import socket
import sys
import threading
import time

MODE = os.environ.get("TG_IMPOSTOR")


def connect() -> socket.socket:
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(os.environ["TG_SOCKET"])
    return peer


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


HELLO = line({"jsonrpc": "2.0", "id": 0, "method": "gateway/hello", "params": {"client": {"name": "codex"}}})


def say(*words: object) -> None:
    print(*words, flush=True)


def read_line(peer: socket.socket, buffer: bytearray) -> bytes:
    while b"\n" not in buffer:
        chunk = peer.recv(1 << 20)
        if not chunk:
            return b""
        buffer.extend(chunk)
    end = buffer.index(b"\n") + 1
    data = bytes(buffer[:end])
    del buffer[:end]
    return data


def silent() -> None:
    peer = connect()
    started = time.monotonic()
    say("connected")
    peer.settimeout(60)
    data = peer.recv(1000)
    say("closed after", round(time.monotonic() - started, 2), "answered" if data else "unanswered")


def flood() -> None:
    peer = connect()
    peer.sendall(HELLO)
    buffer = bytearray()
    say("hello", json.loads(read_line(peer, buffer)).get("result"))
    count = int(os.environ["TG_COUNT"])
    request = line({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    sender = threading.Thread(target=lambda: peer.sendall(request * count), daemon=True)
    sender.start()
    say("sending")
    sys.stdin.readline()
    answers = sum(1 for _ in range(count) if read_line(peer, buffer))
    say("answers", answers)


def idle() -> None:
    peers = [connect() for _ in range(int(os.environ["TG_COUNT"]))]
    accepted = 0
    for peer in peers:
        try:
            peer.sendall(HELLO)
            answer = read_line(peer, bytearray())
        except OSError:  # closed at once: not taken for `tabgate-host mcp`
            answer = b""
        accepted += bool(answer) and "result" in json.loads(answer)
    say("accepted", accepted)
    sys.stdin.readline()
    closed = 0
    for peer in peers:
        peer.setblocking(False)
        try:
            closed += peer.recv(1) == b""
        except ConnectionResetError:
            closed += 1
        except BlockingIOError:
            continue
    say("closed", closed)


def waiting() -> None:
    call = line(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "browser_tab", "arguments": {}},
        }
    )
    peers, accepted = [], 0
    for _ in range(int(os.environ["TG_COUNT"])):
        peer = connect()
        peer.sendall(HELLO)
        answer = read_line(peer, bytearray())
        if answer and "result" in json.loads(answer):
            accepted += 1
            peer.sendall(call)
        peers.append(peer)
    say("accepted", accepted)
    sys.stdin.readline()


if MODE:
    if os.environ.get("TG_CHDIR"):  # moved, once started, to another working folder
        os.chdir(os.environ["TG_CHDIR"])
    try:
        {"silent": silent, "flood": flood, "idle": idle, "waiting": waiting}[MODE]()
    finally:
        sys.stdout.flush()
        os._exit(0)
