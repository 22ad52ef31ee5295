"""Records the accessibility trees of the e2e fixture pages, per frame, as the snapshot tests' fixtures.

Run: .venv/bin/python -m tests.support.record_ax [page ...]  (writes tests/core/fixtures/ax/<page>.json; no
page named: all of them). Each file holds what the debugger executor hands Python: every frame's id, parent,
URL, owner element and AX nodes (the
`sources` of each name are dropped: the snapshot never reads them and they are most of the bytes).
"""

from __future__ import annotations

import json
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import CDPSession, sync_playwright

from tests.support.browser import CHROMIUM_FLAGS, chromium_path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "e2e" / "pages"
OUT = ROOT / "tests" / "core" / "fixtures" / "ax"


def _serve() -> ThreadingHTTPServer:
    handler = partial(SimpleHTTPRequestHandler, directory=str(PAGES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _strip(node: dict[str, Any]) -> dict[str, Any]:
    for key in ("name", "description", "value"):
        if isinstance(node.get(key), dict):
            node[key].pop("sources", None)
    return node


def _frames(cdp: CDPSession, tree: dict[str, Any], parent: str | None) -> list[dict[str, Any]]:
    frame = tree["frame"]
    owner = (
        None if parent is None else cdp.send("DOM.getFrameOwner", {"frameId": frame["id"]})["backendNodeId"]
    )
    nodes = cdp.send("Accessibility.getFullAXTree", {"frameId": frame["id"]})["nodes"]
    out = [
        {
            "frameId": frame["id"],
            "parentId": parent,
            "session": None,
            "url": frame["url"],
            "owner": owner,
            "nodes": [_strip(n) for n in nodes],
        }
    ]
    for child in tree.get("childFrames", []):
        out += _frames(cdp, child, frame["id"])
    return out


def main() -> None:
    first, second = _serve(), _serve()
    base = f"http://127.0.0.1:{first.server_address[1]}"
    other = f"http://127.0.0.1:{second.server_address[1]}"
    pages = {
        "login": f"{base}/login.html?frame={other}",
        "shadow": f"{base}/shadow.html",
        "controlled": f"{base}/controlled.html",
        "form": f"{base}/form.html",
        "hover": f"{base}/hover.html",
        "big": f"{base}/big.html?n=1000",
        "table": f"{base}/table.html",
    }
    only = set(sys.argv[1:])  # names of the pages to record again; none: all of them
    pages = {name: url for name, url in pages.items() if not only or name in only}
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page()
        for name, url in pages.items():
            page.goto(url, wait_until="load")
            page.wait_for_timeout(300)
            cdp = page.context.new_cdp_session(page)
            tree = cdp.send("Page.getFrameTree")["frameTree"]
            recorded = json.dumps({"url": url, "frames": _frames(cdp, tree, None)})
            # The ports change on every recording; the tests read stable origins.
            recorded = recorded.replace(base, "http://127.0.0.1:8001").replace(other, "http://127.0.0.1:8002")
            (OUT / f"{name}.json").write_text(recorded)
            cdp.detach()
        browser.close()
    first.shutdown()
    second.shutdown()


if __name__ == "__main__":
    main()
