"""The host process as Chrome runs it: check the caller, then read frames until the browser hangs up."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

from core.calls.capabilities import ServerStatus

from .config.identity import EXTENSION_ORIGIN
from .config.paths import default_config_path, log_dir
from .config.preview import preview_statuses
from .engine import Engine
from .methods.protocol import answer_early
from .process.framing import FrameWriter, FramingError, read_frame
from .process.jsonrpc import ErrorCode, McpRequestError, Notification, Response, parse_message
from .process.logs import setup_host_logging
from .process.method_table import LOOP_NOTIFICATIONS
from .process.outbox import Outbox
from .process.process_tree import RUNNING
from .servers.status import StatusBoard

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_PROTOCOL = 1  # the input stopped being frames
EXIT_FORBIDDEN = 2  # started by someone other than the Tabgate extension
SHUTDOWN_SECONDS = 3.5  # servers get ~3 s (stdin closed, SIGTERM, SIGKILL after 2 s); exit within 5 s


def _parse(argv: list[str]) -> tuple[str, Path | None]:
    # Chrome passes the origin, then on Windows `--parent-window=N`; the launcher appends `--config FILE`.
    parser = argparse.ArgumentParser(prog="tabgate-host", add_help=False)
    parser.add_argument("origin")
    parser.add_argument("--config", type=Path)
    parser.add_argument("--parent-window")
    options, _unknown = parser.parse_known_args(argv)
    return options.origin, options.config


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private copies of Chrome's pipes; fd 0 and 1 then point elsewhere, so neither a stray print nor a child
    process can ever write a non-frame byte to the browser or steal its input."""
    frames_in, frames_out = os.dup(0), os.dup(1)
    if sys.platform == "win32":
        import msvcrt

        msvcrt.setmode(frames_in, os.O_BINARY)
        msvcrt.setmode(frames_out, os.O_BINARY)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(frames_in, "rb"), os.fdopen(frames_out, "wb")


def run(argv: list[str]) -> int:
    origin, config = _parse(argv)
    if origin != EXTENSION_ORIGIN:
        print(
            f"tabgate-host: refusing to start for {origin!r}: only the Tabgate extension "
            f"({EXTENSION_ORIGIN}) may start this host. To set it up, run: tabgate-host install",
            file=sys.stderr,
        )
        return EXIT_FORBIDDEN
    try:
        setup_host_logging(log_dir())
    except OSError as exc:
        print(
            f"tabgate-host: cannot write logs to {log_dir()}: {exc}; continuing without a log file",
            file=sys.stderr,
        )
    config_path = config or default_config_path()
    log.info("host started (pid %d) for %s, config %s", os.getpid(), origin, config_path)

    frames_in, frames_out = _claim_stdio()
    writer = FrameWriter(frames_out, lambda exc: log.info("the browser closed our output: %s", exc))
    outbox = Outbox(writer)

    def publish(servers: list[ServerStatus]) -> None:
        outbox.notify("notifications/servers", {"servers": servers})

    board = StatusBoard(publish)
    board.replace(preview_statuses(config_path), publish=False)
    engine = Engine(config_path, board, outbox)
    engine.start()
    code = _serve(frames_in, board, outbox, engine)
    writer.release()  # the browser has gone: answers still being sent must not wait for it
    engine.stop(SHUTDOWN_SECONDS)
    if killed := RUNNING.kill_all():
        log.warning("killed %d server process tree(s) still running at exit", killed)
    writer.close(0.5)
    log.info("host exiting with code %d", code)
    return code


def _serve(frames_in: BinaryIO, board: StatusBoard, outbox: Outbox, engine: Engine) -> int:
    while True:
        outbox.wait_for_room()  # backpressure: no new requests while the browser has 64 MiB unread
        try:
            body = read_frame(frames_in)
        except FramingError as exc:
            log.error("stopping: %s", exc)
            return EXIT_PROTOCOL
        except OSError as exc:
            log.error("stopping: cannot read from the browser: %s", exc)
            return EXIT_PROTOCOL
        if body is None:
            log.info("the browser closed the connection")
            return EXIT_OK
        try:
            message = parse_message(body)
            if message is None:
                log.debug("ignoring a response frame without a usable id")
            elif isinstance(message, Response):
                engine.submit(message)  # the browser answering an agent gateway request
            elif isinstance(message, Notification):
                if message.method in LOOP_NOTIFICATIONS:
                    engine.submit(message)
                else:
                    log.debug("ignoring notification %r", message.method)
            elif not answer_early(message, board, outbox):
                engine.submit(message)
        except McpRequestError as exc:
            log.info("bad message: %s", exc.message)
            outbox.error(exc.request_id, exc)
        except Exception as exc:  # a bug must cost one request, never the connection
            log.exception("internal error handling a frame")
            outbox.error(None, McpRequestError(ErrorCode.INTERNAL_ERROR, f"internal error: {exc!r}"))
        finally:
            engine.first_answer_sent()
