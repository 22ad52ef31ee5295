"""Browser-tool figures: snapshot, click by ref and typing through Chrome's debugger, page → answer, and the
snapshot's size beside Playwright's own AI snapshot (the format playwright-mcp sends) of the same page."""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.core.fenced import unwrapped
from tests.support.browser import CHROMIUM_FLAGS, chromium_path, grant_site_access, launch

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "e2e" / "pages"

# Runs one dispatch `n` times from an extension page; the answers of the last run come back too.
_LOOP = """async ([item, n]) => {
    const times = [];
    let answer;
    for (let i = 0; i < n; i++) {
        const t = performance.now();
        answer = await chrome.runtime.sendMessage({type: "dispatch", item});
        if (!answer.success) throw new Error(JSON.stringify(answer).slice(0, 500));
        times.push(performance.now() - t);
    }
    return [times, answer.output.output];
}"""


class _QuietPages(SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _item(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": "bench"}


def _first_and_median(loop: Any, name: str, args: dict[str, Any], n: int) -> tuple[float, float, str]:
    """The first call's time (nothing cached), the median of the next n - 1, and the last answer."""
    first, _ = loop(name, args, 1)
    rest, output = loop(name, args, n - 1)
    return first, rest, output


def _pages_of_any_size(loop: Any, site: str, tab: int) -> list[Any]:
    """Contract §7.1's pages: the 1,000-row table and 100,000 links into the page itself."""
    from tests.support.bench import Figure

    page = {"tabId": tab}
    loop("browser_navigation", {"action": "navigate", "tabId": tab, "url": f"{site}/rows.html"}, 1)
    _, table_ms, _ = _first_and_median(loop, "browser_page", {"action": "snapshot", **page}, 6)
    find = {"action": "find", "text": "0877", **page}
    find_first_ms, find_ms, found = _first_and_median(loop, "browser_page", find, 11)
    refund = re.search(r'button "Refund" \[ref=(e\d+)\]', found)
    assert refund is not None, found
    loop("browser_dom", {"action": "click", "ref": refund[1], **page}, 1)
    # A new tab, so the first answer includes attaching the debugger to it, as an agent's first call does.
    links = f"{site}/links.html?n=100000&hash=1"
    created = loop("browser_tab", {"action": "create", "url": links}, 1)[1]
    page = {"tabId": json.loads(unwrapped(created))["id"]}
    loop("browser_navigation", {"action": "wait_for_load", **page}, 1)
    big_first_ms, big_ms, _ = _first_and_median(loop, "browser_page", {"action": "snapshot", **page}, 4)
    big_find_first_ms, big_find_ms, _ = _first_and_median(
        loop, "browser_page", {"action": "find", "text": "Item 98765", **page}, 3
    )
    return [
        Figure(
            "browser_snapshot_1000_rows",
            table_ms,
            "ms",
            "≤ 280",
            "rows.html, page→answer, median of 4 after the first",
        ),
        Figure("browser_find_1000_rows", find_ms, "ms", "≤ 100", "find 0877 again, median of 9"),
        Figure("browser_find_1000_rows_first", find_first_ms, "ms", note="find 0877 after a snapshot"),
        Figure("browser_reach_row_877_calls", 2, "calls", note="find, then click its button's ref"),
        Figure("browser_reach_row_877_chars", len(found), "chars", note="the find answer"),
        Figure(
            "browser_snapshot_100k_first",
            big_first_ms,
            "ms",
            "≤ 3000",
            "100,000 links into the page, new tab",
        ),
        Figure("browser_snapshot_100k", big_ms, "ms", note="the same page again, median of 2"),
        Figure("browser_find_100k_first", big_find_first_ms, "ms", "≤ 2000", "find Item 98765, first time"),
        Figure("browser_find_100k", big_find_ms, "ms", note="the same find again (the third call)"),
    ]


def browser_actions() -> list[Any]:
    from tests.support.bench import Figure  # the shared figure type; bench imports this module lazily

    server = ThreadingHTTPServer(("127.0.0.1", 0), _QuietPages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    big = f"{site}/big.html?n=1000"
    try:
        with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
            profile = Path(tmp) / "profile"
            with launch(pw, profile):
                pass
            grant_site_access(pw, profile, [site])
            with launch(pw, profile, open_timeout_ms=120_000) as ext:
                ext.wait_python_ready()
                ext.page.goto(f"chrome-extension://{ext.id}/manifest.json")

                def loop(name: str, args: dict[str, Any], n: int) -> tuple[float, str]:
                    times, output = ext.page.evaluate(_LOOP, [_item(name, args), n])
                    return round(statistics.median(times[1:] if n > 1 else times), 2), output

                tab = json.loads(unwrapped(loop("browser_tab", {"action": "create", "url": big}, 1)[1]))["id"]
                loop("browser_navigation", {"action": "wait_for_load", "tabId": tab}, 1)
                snapshot_ms, outline = loop(
                    "browser_page", {"action": "snapshot", "tabId": tab, "maxChars": 10**6}, 6
                )
                add = re.search(r'button "Add 3" \[ref=(e\d+)\]', outline)
                assert add is not None, outline[:500]
                click_ms, _ = loop("browser_dom", {"action": "click", "tabId": tab, "ref": add[1]}, 31)
                scale = _pages_of_any_size(loop, site, tab)
                form = f"{site}/form.html"
                loop("browser_navigation", {"action": "navigate", "tabId": tab, "url": form}, 1)
                text = "twenty characters!!!"
                type_args = {"action": "type", "tabId": tab, "selector": "#name", "text": text, "clear": True}
                type_ms, _ = loop("browser_dom", type_args, 21)
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
            page = browser.new_page()
            page.goto(big)
            playwright_chars = len(page.aria_snapshot(mode="ai"))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    ours = len(outline)
    return [
        *scale,
        Figure("browser_snapshot_1000_elements", snapshot_ms, "ms", "≤ 150", "page→answer, median of 5"),
        Figure("browser_click_by_ref", click_ms, "ms", "≤ 30", "page→answer, median of 30"),
        Figure("browser_type_20_chars", type_ms, "ms", "≤ 60", "clear + 20 keys, page→answer, median of 20"),
        Figure("browser_snapshot_chars_1000_elements", ours, "chars", note="our outline, whole page"),
        Figure(
            "playwright_ai_snapshot_chars_1000_elements",
            playwright_chars,
            "chars",
            note="page.aria_snapshot(mode='ai'), what playwright-mcp sends, same page",
        ),
        Figure(
            "browser_snapshot_size_ratio",
            round(ours / playwright_chars, 3),
            "×",
            "≤ 1",
            "ours ÷ Playwright's",
        ),
    ]
