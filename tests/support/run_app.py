"""`python3 build.py run`: Chromium with the extension and the host, in a dedicated profile under .tabgate/.

With a display, Chromium opens and stays until you close it. Without one, the same flow runs headless: it
opens the popup, calls one built-in, one browser and one MCP tool, prints what each returned and saves
dist/popup.png.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import Extension, install_host, launch

ROOT = Path(__file__).resolve().parents[2]
# The tour's own profile, config, logs and data; TABGATE_RUN_STATE moves it (the tests run it elsewhere).
STATE = Path(os.environ.get("TABGATE_RUN_STATE") or ROOT / ".tabgate")
PROFILE = STATE / "profile"
CONFIG = STATE / "config.toml"


def host_env() -> dict[str, str]:
    return {"TABGATE_LOG_DIR": str(STATE / "logs"), "TABGATE_DATA_DIR": str(STATE / "data")}


def _summary(answer: dict[str, Any]) -> str:
    if "fatal" in answer:
        return f"FATAL {answer['fatal']}"
    output = answer["output"]
    body = output.get("output", output.get("result"))
    text = body if isinstance(body, str) else json.dumps(body)
    return f"success={answer['success']} {text[:300]}"


def call(ext: Extension, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(arguments),
        "call_id": f"run-{name}",
    }
    answer: dict[str, Any] = ext.dispatch(item)
    print(f"  {name}: {_summary(answer)}")
    return answer


def headless_tour(ext: Extension) -> int:
    status = ext.wait_python_ready()
    deadline = time.monotonic() + SERVERS_UP_S
    while status["host"] == "connected" and any(s["status"] == "starting" for s in status["servers"]):
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
        status = ext.send({"type": "status"})
    servers = ", ".join(f"{s['name']}={s['status']}" for s in status["servers"]) or "none"
    print(
        f"status: python={status['python']} (boot {status['bootMs']} ms) host={status['host']}",
        f"servers: {servers}",
    )
    if status["host"] != "connected":
        print(f"  host error: {status.get('hostError')}")
    ext.send({"type": "config/set", "patch": {"mcpTools": True}})
    failures = 0
    print("calls:")
    plan = {"plan": [{"step": "Try Tabgate", "status": "in_progress"}], "explanation": "build.py run"}
    failures += call(ext, "update_plan", plan).get("success") is not True
    failures += call(ext, "browser_tab", {"action": "query"}).get("success") is not True
    tools = ext.send({"type": "tools"})["tools"]
    mcp = [t for t in tools if t["source"] == "mcp"]
    notes = {t["name"].rsplit("__", 1)[-1]: t["name"] for t in mcp}
    if not {"add_note", "delete_note"} <= notes.keys():
        print(f"  MCP: the notes tools are not offered ({len(mcp)} MCP tools); host={status['host']}")
        failures += 1
    else:
        # The tour's note goes again at once: running the tour never leaves anything in the notes.
        added = call(
            ext, notes["add_note"], {"title": "Hello from build.py run", "body": "written by the tour"}
        )
        note = added.get("output", {}).get("result", {}).get("Ok", {}).get("structuredContent") or {}
        failures += "id" not in note
        if "id" in note:
            deleted = call(ext, notes["delete_note"], {"id": note["id"]})
            failures += deleted.get("output", {}).get("result", {}).get("Ok", {}).get("isError") is not False
    ext.page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    ext.page.set_viewport_size({"width": 480, "height": 600})
    ext.page.wait_for_timeout(500)
    shot = ROOT / "dist" / "popup.png"
    ext.page.screenshot(path=str(shot), full_page=True)
    print(f"popup screenshot: {shot}")
    return 1 if failures else 0


def headed(env: dict[str, str]) -> int:
    with sync_playwright() as pw, launch(pw, PROFILE, env=env, headless=False, default_place=True) as ext:
        print("Chromium is running with Tabgate; close the window to stop.")
        ext.context.wait_for_event("close", timeout=0)
    return 0


def main() -> int:
    STATE.mkdir(exist_ok=True)
    PROFILE.mkdir(exist_ok=True)
    env = host_env()
    install_host(PROFILE, CONFIG, env=env)
    print(f"host installed for {PROFILE} with config {CONFIG}")
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return headed(env)
    print("no display: running the headless tour")
    with sync_playwright() as pw, launch(pw, PROFILE, env=env) as ext:
        return headless_tour(ext)


if __name__ == "__main__":
    sys.exit(main())
