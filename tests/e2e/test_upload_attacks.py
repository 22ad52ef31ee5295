"""Uploads are the file that was checked (contract §8.2), end to end: real Chromium, the real host checking
the files, the page reading what it was given. Chrome reads an uploaded file by path when the page reads it,
so each attack changes the disk after the host answered and before the page reads: a folder swapped for a
link to another, the file swapped for a FIFO; and a hard link in the folder to a file outside."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright

from tests.e2e.conftest import empty_config
from tests.support.browser import Extension, grant_site_access, install_host, launch
from tests.support.gateway_browser import open_site_tab, person_tab_id, serve_page
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

PAGE = b"""<!doctype html><title>Upload fixture</title><input type="file" id="file" multiple>
<script>
// What the page reads of its files, when asked: each one's name and text, or the error reading it gave.
// A reader that never finishes (Chrome waiting on a FIFO) is given up after a few seconds.
window.readFiles = () => Promise.all([...document.getElementById("file").files].map((f) =>
  Promise.race([
    f.text().then((text) => `${f.name}: ${text}`, (error) => `${f.name}: ${error.name}`),
    new Promise((done) => setTimeout(() => done(`${f.name}: no answer`), 5000)),
  ])));
</script>"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_page(PAGE) as origin:
        yield origin


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], site: str
) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-uploads")
    install_host(profile, empty_config(profile), env=host_env)
    grant_site_access(pw, profile, [site])
    with launch(pw, profile, env=host_env) as ext:
        ext.wait_python_ready()
        wait_for(lambda: ext.send({"type": "status"})["host"] == "connected", "the host connected")
        yield ext


@pytest.fixture
def disk(tmp_path: Path) -> Path:
    """allowed/sub/notes.txt (what is checked) and outside/ (what an attacker would have uploaded instead)."""
    (tmp_path / "allowed" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "allowed" / "sub" / "notes.txt").write_text("checked text")
    return tmp_path


@pytest.fixture
def page(ext: Extension, site: str, disk: Path) -> Iterator[Page]:
    tab = open_site_tab(ext, site)
    ext.send({"type": "config/set", "patch": {"uploadDirs": [str(disk / "allowed")]}})
    try:
        yield tab
    finally:
        ext.send({"type": "config/set", "patch": {"uploadDirs": []}})
        tab.close()


def upload(ext: Extension, page: Page, path: Path) -> dict[str, Any]:
    arguments = {
        "action": "upload",
        "selector": "#file",
        "tabId": person_tab_id(ext, page.url),
        "paths": [str(path)],
    }
    item = {
        "type": "function_call",
        "name": "browser_dom",
        "arguments": json.dumps(arguments),
        "call_id": "up",
    }
    return dict(ext.dispatch(item))


def look_alike(original: Path, forged: Path, text: str) -> None:
    """`forged` with `text` (as long as the original's) and the original's times: Chrome's check that a file
    did not change since it was chosen (size, modification time) cannot tell them apart."""
    forged.write_text(text)
    status = original.stat()
    os.utime(forged, ns=(status.st_atime_ns, status.st_mtime_ns))


def folder_to_link(disk: Path) -> None:
    """The checked file's folder becomes a link to another holding a look-alike of the file."""
    look_alike(disk / "allowed" / "sub" / "notes.txt", disk / "outside" / "notes.txt", "SECRET text")
    (disk / "allowed" / "sub").rename(disk / "allowed" / "sub-was")
    (disk / "allowed" / "sub").symlink_to(disk / "outside")


def file_to_fifo(disk: Path) -> None:
    (disk / "allowed" / "sub" / "notes.txt").unlink()
    os.mkfifo(disk / "allowed" / "sub" / "notes.txt")


@pytest.mark.parametrize("change", [folder_to_link, file_to_fifo])
def test_a_path_changed_after_the_check_never_reaches_the_page(
    ext: Extension, page: Page, disk: Path, change: Callable[[Path], None]
) -> None:
    uploaded = upload(ext, page, disk / "allowed" / "sub" / "notes.txt")
    assert uploaded["success"] is True, uploaded["output"]["output"]
    change(disk)
    assert page.evaluate("readFiles()") == ["notes.txt: checked text"]


def test_a_hard_link_to_a_file_outside_is_refused(ext: Extension, page: Page, disk: Path) -> None:
    (disk / "outside" / "id_rsa").write_text("PRIVATE KEY")
    os.link(disk / "outside" / "id_rsa", disk / "allowed" / "key.txt")
    refused = upload(ext, page, disk / "allowed" / "key.txt")
    assert refused["success"] is False
    message = refused["output"]["output"]
    assert "key.txt" in message and "has 2 hard links" in message, message
    assert page.evaluate("readFiles()") == []
