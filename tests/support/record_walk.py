"""Records what the page-side walk (core/browser/walker.py) answers for the e2e fixture pages, per frame, as
the snapshot tests' fixtures.

Run: .venv/bin/python -m tests.support.record_walk [page ...]  (writes tests/core/fixtures/walk/<page>.json;
no page named: all of them). Each file holds what Python gets from the executor: every frame's id, parent,
URL, the walk's answer, and the number the walk gave the <iframe> that shows the frame.
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

from core.browser.walker import NODES, WALK, WORLD
from tests.support.browser import CHROMIUM_FLAGS, chromium_path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "e2e" / "pages"
OUT = ROOT / "tests" / "core" / "fixtures" / "walk"


def _serve() -> ThreadingHTTPServer:
    handler = partial(SimpleHTTPRequestHandler, directory=str(PAGES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _call(cdp: CDPSession, context: int, function: str, *args: Any, by_value: bool = True) -> Any:
    params = {
        "functionDeclaration": function,
        "executionContextId": context,
        "arguments": [{"value": a} for a in args],
        "returnByValue": by_value,
    }
    return cdp.send("Runtime.callFunctionOn", params)["result"]


def _iframes(cdp: CDPSession, context: int, walk: dict[str, Any]) -> dict[int, int]:
    """The debugger's node id of each <iframe> the walk answered → the walk's number for it."""
    ids = [n[0] for n in walk["nodes"] if n[2] == "Iframe"]
    if not ids:
        return {}
    array = _call(cdp, context, NODES, walk["doc"], ids, by_value=False)["objectId"]
    props = cdp.send("Runtime.getProperties", {"objectId": array, "ownProperties": True})["result"]
    objects = {int(p["name"]): p["value"]["objectId"] for p in props if p["name"].isdigit()}
    return {
        cdp.send("DOM.describeNode", {"objectId": objects[i]})["node"]["backendNodeId"]: number
        for i, number in enumerate(ids)
    }


def _frames(cdp: CDPSession, tree: dict[str, Any], parent: dict[str, Any] | None) -> list[dict[str, Any]]:
    frame = tree["frame"]
    context = cdp.send("Page.createIsolatedWorld", {"frameId": frame["id"], "worldName": WORLD})
    walk = _call(cdp, context["executionContextId"], WALK, 10**9, None, None)["value"]
    owner = None
    if parent is not None:
        backend = cdp.send("DOM.getFrameOwner", {"frameId": frame["id"]})["backendNodeId"]
        owner = parent["iframes"][backend]
    here = {
        "frameId": frame["id"],
        "parentId": None if parent is None else parent["frameId"],
        "url": frame["url"],
        "owner": owner,
        "walk": walk,
    }
    mine = {"frameId": frame["id"], "iframes": _iframes(cdp, context["executionContextId"], walk)}
    out = [here]
    for child in tree.get("childFrames", []):
        out += _frames(cdp, child, mine)
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
        for name, url in pages.items():
            page = browser.new_page()
            page.goto(url, wait_until="load")
            page.wait_for_timeout(500)
            cdp = page.context.new_cdp_session(page)
            tree = cdp.send("Page.getFrameTree")["frameTree"]
            recorded = json.dumps({"url": url, "frames": _frames(cdp, tree, None)})
            # The ports change on every recording; the tests read stable origins.
            recorded = recorded.replace(base, "http://127.0.0.1:8001").replace(other, "http://127.0.0.1:8002")
            (OUT / f"{name}.json").write_text(recorded)
            page.close()
        browser.close()
    first.shutdown()
    second.shutdown()


if __name__ == "__main__":
    main()
