"""How the debugger executor (extension/worker/debugger.js) sets up every tab it attaches to: the protocol
version, the commands each session (the tab's own and each out-of-process frame's) gets, how many entries each
buffer keeps, and the commands that hold an agent's document loads for Python's decision and let them go. The
build writes these as `debugger_setup.js` (buildsys/js_tables.py); the worker runs them as given. Standard
library only: the build reads it before the .venv."""

from __future__ import annotations

from typing import Any

type SetupCommand = tuple[str, dict[str, Any]]  # a CDP method and its params, sent as they stand

PROTOCOL_VERSION = "1.3"
# Entries kept per buffer (console messages, network requests, dialogs) and tab: the most that
# browser_devtools can be asked for (core/browser/devtools.py caps `limit` at it).
BUFFER_ENTRIES = 1_000
# Every session is set up alike, so that its console, network and dialogs reach the buffers and its own child
# frames are announced in turn (flat sessions). Post data is kept up to 64 KiB per request.
SESSION_SETUP: tuple[SetupCommand, ...] = (
    ("Page.enable", {}),
    ("Runtime.enable", {}),
    ("Log.enable", {}),
    ("Network.enable", {"maxPostDataSize": 65_536}),
    ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}),
)
# On an agent's tabs every document request pauses before it leaves the browser (the request stage, so each
# redirect hop too) until Python decides (core/consent/nav_guard.py); a tab let go stops pausing.
HOLD_DOCUMENTS: SetupCommand = (
    "Fetch.enable",
    {"patterns": [{"resourceType": "Document", "requestStage": "Request"}]},
)
RELEASE_DOCUMENTS: SetupCommand = ("Fetch.disable", {})
# A paused load that Python did not decide in time (or whose tab closed) is failed: never held, never let by.
UNDECIDED_LOAD = {"continue": False, "errorReason": "Aborted"}
