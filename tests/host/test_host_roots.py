"""A server's roots (config `roots`, contract §3) through a real host: the official filesystem server's
allowed folders follow them, also when they change while it runs (`notifications/roots/list_changed`, no
restart), and a filesystem server without `roots` keeps its command-line folders; a 2026-07-28-only SDK
server's tool asks for them through `input_required`; and a server that asks with none configured is
answered with an error, not left waiting."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import HostDirs, running_host, stdio_server, toml_str
from hostproc import HostError, HostProcess

from native_host.process.logs import server_log_path
from tests.support.http_servers import endpoint, serving
from tests.support.npm_packages import FILESYSTEM, installed, node_path
from tests.support.polling import wait_for

pytestmark = pytest.mark.host

# The filesystem server fetches roots after the handshake, and again after list_changed, on its own time;
# the wait is the host's own bound for one tool call.
TOOL_TIMEOUT_SEC = 30

type Modern = tuple[HostProcess, list[Path]]  # the host, and the folders its `rooted` servers have


def filesystem(name: str, folder: Path, roots: list[Path] | None) -> str:
    argv = ", ".join(toml_str(arg) for arg in (installed(FILESYSTEM), folder))
    table = f"[mcp_servers.{name}]\ncommand = {toml_str(node_path())}\nargs = [{argv}]\n"
    table += f"tool_timeout_sec = {TOOL_TIMEOUT_SEC}\n"
    if roots is not None:
        table += f"roots = [{', '.join(toml_str(root) for root in roots)}]\n"
    return table


def allowed(host: HostProcess, server: str) -> list[str]:
    call = {"server": server, "tool": "list_allowed_directories", "arguments": {}}
    text: str = host.call("tools/call", call)["content"][0]["text"]
    return text.removeprefix("Allowed directories:\n").splitlines()


def allowed_become(host: HostProcess, server: str, folders: list[Path]) -> None:
    expected = sorted(str(folder) for folder in folders)
    wait_for(
        lambda: sorted(allowed(host, server)) == expected,
        f"{server}'s allowed directories to be {expected} (last: {allowed(host, server)})",
        timeout_s=TOOL_TIMEOUT_SEC,
    )


def folders(root: Path, *names: str) -> list[Path]:
    made = [root / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


def test_the_filesystem_servers_folders_follow_the_configured_roots(tmp_path: Path) -> None:
    dirs = HostDirs.under(tmp_path / "host")
    given, first, second, later = folders(tmp_path, "given", "my folder ü", "b#1", "later")
    config = filesystem("rooted", given, [first, second]) + filesystem("plain", given, None)
    with running_host(dirs, config) as host:
        host.initialize()
        host.wait_ready("rooted", "plain")
        allowed_become(host, "rooted", [first, second])
        assert allowed(host, "plain") == [str(given)]  # no roots: its command line's folders, as before

        dirs.config.write_text(filesystem("rooted", given, [later]) + filesystem("plain", given, None))
        answer = host.call("servers/restart", {"server": "rooted"})
        assert answer["status"]["status"] == "ready"
        allowed_become(host, "rooted", [later])
    starts = server_log_path(dirs.logs, "rooted").read_text().count("--- starting")
    assert starts == 1, "the change of roots alone reached the running server without a restart"


def test_a_change_that_declares_roots_restarts_the_server(tmp_path: Path) -> None:
    dirs = HostDirs.under(tmp_path / "host")
    given, root = folders(tmp_path, "given", "root")
    with running_host(dirs, filesystem("fs", given, None)) as host:
        host.initialize()
        host.wait_ready("fs")
        assert allowed(host, "fs") == [str(given)]
        dirs.config.write_text(filesystem("fs", given, [root]))
        host.call("servers/restart", {"server": "fs"})
        allowed_become(host, "fs", [root])
    assert server_log_path(dirs.logs, "fs").read_text().count("--- starting") == 2


@pytest.fixture(scope="module")
def modern(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Modern]:
    """A host with the 2026-07-28-only server twice, with roots and without; and the raw stdio server."""
    root = tmp_path_factory.mktemp("roots")
    rooted = folders(root, "a b", "ü")
    dirs = HostDirs.under(root / "host")
    with serving("only_2026_server.py", "http") as origin:
        url = toml_str(endpoint(origin, "http"))
        roots = f"roots = [{', '.join(toml_str(folder) for folder in rooted)}]"
        config = f"[mcp_servers.rooted]\nurl = {url}\n{roots}\n\n[mcp_servers.bare]\nurl = {url}\n\n"
        config += stdio_server("raw_rooted", "raw_server.py", extra=roots)
        config += stdio_server("raw_bare", "raw_server.py")
        with running_host(dirs, config) as host:
            host.initialize()
            host.wait_ready("rooted", "bare", "raw_rooted", "raw_bare")
            yield host, rooted


def call(host: HostProcess, server: str, tool: str) -> str:
    result = host.call("tools/call", {"server": server, "tool": tool, "arguments": {}}, timeout=60)
    text: str = result["content"][0]["text"]
    return text


def test_a_2026_server_asks_for_roots_through_input_required(modern: Modern) -> None:
    host, rooted = modern
    root = rooted[0].parent.as_uri()
    assert call(host, "rooted", "folders").splitlines() == [f"{root}/a%20b a b", f"{root}/%C3%BC ü"]


def test_a_2026_server_without_roots_is_told_the_host_has_none(modern: Modern) -> None:
    host, _ = modern
    with pytest.raises(HostError) as refused:
        call(host, "bare", "folders")
    assert refused.value.code == -32021 and "roots" in refused.value.message
    assert refused.value.data["server"] == "bare"


def test_a_roots_request_is_answered_with_the_roots_or_an_error(modern: Modern) -> None:
    host, rooted = modern
    answer: dict[str, Any] = json.loads(call(host, "raw_rooted", "roots"))
    assert answer["result"]["roots"] == [{"uri": f.as_uri(), "name": f.name} for f in rooted]
    refused: dict[str, Any] = json.loads(call(host, "raw_bare", "roots"))
    assert refused["error"]["message"] == "List roots not supported"
