"""A throwaway HTTP server on 127.0.0.1 for the pages an e2e test drives (the only network the tests use)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parents[1] / "e2e" / "pages"


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on a free port; yields the site's origin. Request threads never hold up shutdown (a
    page still loading when the test ends is simply dropped)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class FixturePages(SimpleHTTPRequestHandler):
    """The fixture pages (tests/e2e/pages/), never cached, without a log line per request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def pages_and_a_redirect(pages: Mapping[str, bytes], redirect_to: str) -> type[BaseHTTPRequestHandler]:
    """A site of fixed pages (by path, query ignored; any other path a bare page) whose `/redirect` answers
    302 to `redirect_to` (another site's page, for the navigation tests and benchmarks)."""

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path == "/redirect":
                self.send_response(302)
                self.send_header("Location", redirect_to)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(pages.get(path, b"<!doctype html><title>page</title><p>a page</p>"))

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Site
