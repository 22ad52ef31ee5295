"""Driving the whole chain (extension page → service worker → Python → host → MCP server) under faults.

Shared by the `faults` test tier (tests/e2e/test_faults.py) and the issue-9 benchmarks (fault_bench.py):
the fault server's config, calls started from a page without waiting for them, and big results checked
inside the page so that megabytes never cross the DevTools protocol."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.support.browser import Extension
from tests.support.polling import history_entry, wait_for

ROOT = Path(__file__).resolve().parents[2]
FAULT_SERVER = ROOT / "tests" / "e2e" / "servers" / "fault_server.py"
SILENT_SERVER = ROOT / "tests" / "host" / "servers" / "silent_server.py"


def stdio_server(
    name: str,
    script: Path,
    *,
    env: Mapping[str, str] | None = None,
    startup_timeout_sec: float | None = None,
    tool_timeout_sec: float | None = None,
) -> str:
    """One `[mcp_servers.<name>]` table running `script` with this Python."""
    lines = [
        f"[mcp_servers.{name}]",
        f"command = {json.dumps(sys.executable)}",
        f"args = {json.dumps([str(script)])}",
    ]
    if env:
        pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in env.items())
        lines.append(f"env = {{ {pairs} }}")
    if startup_timeout_sec is not None:
        lines.append(f"startup_timeout_sec = {startup_timeout_sec}")
    if tool_timeout_sec is not None:
        lines.append(f"tool_timeout_sec = {tool_timeout_sec}")
    return "\n".join(lines) + "\n\n"


def function_call(name: str, arguments: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}


def dispatch_message(name: str, arguments: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "dispatch", "item": function_call(name, arguments, call_id)}


def server_states(ext: Extension) -> dict[str, str]:
    return {s["name"]: s["status"] for s in ext.send({"type": "status"})["servers"]}


def settled_entry(ext: Extension, call_id: str, timeout_s: float = 30) -> dict[str, Any]:
    """The entry once it is no longer `running` (recording happens behind the answer)."""
    entry: dict[str, Any] = wait_for(
        lambda: (e := history_entry(ext, call_id)) is not None and e["status"] != "running" and e,
        f"the history entry of {call_id} to leave 'running' (last: {history_entry(ext, call_id)})",
        timeout_s,
        every_s=0.25,
    )
    return entry


# ------------------------------------------------------------------ calls started from a page

_START = """([key, message]) => {
    window.__calls ??= {};
    const record = { startedAt: Date.now() };
    window.__calls[key] = record;
    chrome.runtime.sendMessage(message).then(
        (answer) => { record.answer = answer; record.endedAt = Date.now(); },
        (error) => { record.error = String(error?.message ?? error); record.endedAt = Date.now(); });
}"""


def start_call(page: Page, key: str, message: Mapping[str, Any]) -> None:
    """Send `message` from `page` and return at once; `call_record(page, key)` has the outcome."""
    page.evaluate(_START, [key, dict(message)])


def call_record(page: Page, key: str) -> dict[str, Any]:
    """{startedAt, endedAt?, answer? | error?}: Date.now() stamps, comparable across pages."""
    record: dict[str, Any] = page.evaluate("(key) => window.__calls[key]", key)
    return record


def finished_call(page: Page, key: str, timeout_s: float = 60) -> dict[str, Any]:
    record: dict[str, Any] = wait_for(
        lambda: (r := call_record(page, key)).get("endedAt") and r, f"call {key} to answer", timeout_s
    )
    return record


# The blob's line k is "%09d\n" (fault_server.blob_text); checked here, in the page, line by line.
_CALL_BLOB = """async ([message, size, timeoutMs]) => {
    const t0 = performance.now();
    const timer = new Promise((_, reject) => setTimeout(() => reject(new Error('no answer')), timeoutMs));
    let answer;
    try {
        answer = await Promise.race([chrome.runtime.sendMessage(message), timer]);
    } catch (e) {
        return { error: String(e.message ?? e), ms: performance.now() - t0 };
    }
    const ms = performance.now() - t0;
    const ok = answer?.output?.result?.Ok;
    if (!ok) return { answer: JSON.stringify(answer).slice(0, 2000), ms };
    const text = ok.content.map((c) => c.text ?? '').join('');
    const lines = Math.floor(size / 10);
    let firstBadLine = -1;
    for (let k = 0; k < lines; k++) {
        const line = text.slice(10 * k, 10 * k + 10);
        if (line !== String(k).padStart(9, '0') + '\\n') { firstBadLine = k; break; }
    }
    return { success: answer.success, isError: ok.isError, length: text.length, firstBadLine,
             tail: text.slice(10 * lines), ms };
}"""


def call_blob(page: Page, server: str, size: int, call_id: str, timeout_s: float = 120) -> dict[str, Any]:
    """Ask `server`'s blob tool for `size` bytes from `page`; the summary of what arrived (and how fast)."""
    message = dispatch_message(f"mcp__{server}__blob", {"size": size}, call_id)
    summary: dict[str, Any] = page.evaluate(_CALL_BLOB, [message, size, int(timeout_s * 1000)])
    return summary


def blob_intact(summary: Mapping[str, Any], size: int) -> bool:
    return (
        summary.get("success") is True
        and summary.get("isError") is False
        and summary.get("length") == size
        and summary.get("firstBadLine") == -1
        and summary.get("tail") == "." * (size % 10)
    )


def quiet_page(ext: Extension) -> Page:
    """An extension page that does nothing by itself (the popup reacts to every event): a clean caller."""
    page = ext.context.new_page()
    page.goto(f"chrome-extension://{ext.id}/manifest.json")
    return page
