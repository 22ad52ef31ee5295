"""The host against real MCP servers, over stdio, streamable HTTP and SSE, started as Chrome starts it.

One host serves every server here (module scope), which is how the extension uses it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from conftest import HostDirs, demo_over_http, running_host, stdio_server, toml_str
from hostproc import HostError, HostProcess

pytestmark = pytest.mark.host

TOKEN = "s3cret-token-value-42"
SERVER_NAMES = {
    "demo",
    "demo_http",
    "demo_sse",
    "time",
    "everything_old",
    "everything_new",
    "paged",
    "looping",
    "filtered",
    "off",
}


@pytest.fixture(scope="module")
def markers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("markers")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> HostDirs:
    return HostDirs.under(tmp_path_factory.mktemp("host"))


@pytest.fixture(scope="module")
def host(
    dirs: HostDirs,
    markers: Path,
    node: str,
    everything_paged: Path,
    everything_progress: Path,
    time_server: str,
) -> Iterator[HostProcess]:
    demo_env = f"env = {{ DEMO_MARKERS = {toml_str(markers)} }}"
    with (
        demo_over_http("http", {"DEMO_TOKEN": TOKEN}) as http_url,
        demo_over_http("sse") as sse_url,
    ):
        config = "".join(
            [
                stdio_server("demo", "demo_server.py", extra=demo_env),
                f'[mcp_servers.demo_http]\nurl = "{http_url}"\nbearer_token_env_var = "DEMO_BEARER"\n'
                'http_headers = { X-Demo = "yes" }\n\n',
                f'[mcp_servers.demo_sse]\nurl = "{sse_url}"\ntransport = "sse"\n\n',
                f"[mcp_servers.time]\ncommand = {toml_str(time_server)}\n"
                'args = ["--local-timezone", "UTC"]\nhandshake = "auto"\n\n',  # mcp 2.3: the 2026 protocol
                f"[mcp_servers.everything_old]\ncommand = {toml_str(node)}\n"
                f"args = [{toml_str(everything_paged)}]\n"
                "startup_timeout_sec = 30\n\n",
                f"[mcp_servers.everything_new]\ncommand = {toml_str(node)}\n"
                f'args = [{toml_str(everything_progress)}, "stdio"]\nstartup_timeout_sec = 30\n\n',
                stdio_server("paged", "paged_server.py"),
                stdio_server("looping", "paged_server.py", "--repeat-cursor"),
                stdio_server(
                    "filtered",
                    "demo_server.py",
                    extra='enabled_tools = ["echo", "add", "fail"]\ndisabled_tools = ["fail"]',
                ),
                stdio_server("off", "demo_server.py", extra="enabled = false"),
            ]
        )
        with running_host(dirs, config, env={"DEMO_BEARER": TOKEN}) as started:
            started.initialize()
            started.wait_ready(*(SERVER_NAMES - {"off"}))
            yield started


def call(
    host: HostProcess, server: str, tool: str, arguments: dict[str, Any] | None = None, **extra: Any
) -> Any:
    return host.call("tools/call", {"server": server, "tool": tool, "arguments": arguments or {}, **extra})


def test_every_server_reports_its_status(host: HostProcess) -> None:
    servers = {s["name"]: s for s in host.call("servers/list")["servers"]}
    assert set(servers) == SERVER_NAMES
    assert servers["off"]["status"] == "disabled"
    assert all(s["status"] == "ready" for name, s in servers.items() if name != "off")
    assert {name: s["transport"] for name, s in servers.items() if name.startswith("demo")} == {
        "demo": "stdio",
        "demo_http": "streamable_http",
        "demo_sse": "sse",
    }
    assert servers["paged"]["tools"] == 25
    assert servers["filtered"]["tools"] == 2
    assert (servers["everything_old"]["startupTimeoutSec"], servers["everything_old"]["toolTimeoutSec"]) == (
        30,
        60,
    )
    assert "tools" in servers["demo"]["capabilities"]


def test_tools_list_pages_to_the_end_filters_and_sorts(host: HostProcess) -> None:
    tools = host.call("tools/list")["tools"]
    names = [t["qualifiedName"] for t in tools]
    assert names == sorted(names)
    by_server: dict[str, list[str]] = {}
    for tool in tools:
        by_server.setdefault(tool["server"], []).append(tool["name"])
        assert tool["qualifiedName"] == f"mcp__{tool['server']}__{tool['name']}"
        assert isinstance(tool["inputSchema"], dict) and tool["available"] is True
    assert sorted(by_server["paged"]) == [f"tool_{n:02d}" for n in range(25)]
    assert sorted(by_server["looping"]) == [
        f"tool_{n:02d}" for n in range(20)
    ]  # a repeated cursor ends the walk
    assert sorted(by_server["filtered"]) == ["add", "echo"]
    assert "off" not in by_server
    assert {"echo", "add", "slow", "big"} <= set(by_server["demo_http"]) == set(by_server["demo_sse"])
    assert "trigger-long-running-operation" in by_server["everything_new"]
    only = host.call("tools/list", {"server": "paged"})["tools"]
    assert {t["server"] for t in only} == {"paged"} and len(only) == 25


@pytest.mark.parametrize("server", ["demo", "demo_http", "demo_sse"])
def test_tools_call_over_each_transport(host: HostProcess, server: str) -> None:
    result = call(host, server, "add", {"a": 2, "b": 3})
    assert result["structuredContent"] == {"result": 5}
    assert result["isError"] is False
    assert result["content"][0] == {"type": "text", "text": "5"}
    assert "resultType" not in result


def test_third_party_servers_answer(host: HostProcess) -> None:
    now = call(host, "time", "get_current_time", {"timezone": "UTC"})
    assert now["isError"] is False and now["structuredContent"]["timezone"] == "UTC"
    echoed = call(host, "everything_old", "echo", {"message": "hi there"})
    assert "hi there" in echoed["content"][0]["text"]


def test_progress_is_forwarded_with_the_request_id(host: HostProcess) -> None:
    future = host.submit(
        "tools/call",
        {
            "server": "everything_new",
            "tool": "trigger-long-running-operation",
            "arguments": {"duration": 0.4, "steps": 4},
        },
    )
    response = future.result(60)
    assert "result" in response
    progress = [
        n["params"]
        for n in host.notifications
        if n["method"] == "notifications/progress" and n["params"]["requestId"] == response["id"]
    ]
    assert [p["progress"] for p in progress] == [1, 2, 3, 4]
    assert all(p["total"] == 4 for p in progress)


def test_progress_messages_from_a_python_server(host: HostProcess) -> None:
    response = host.submit(
        "tools/call", {"server": "demo", "tool": "slow", "arguments": {"seconds": 0.2, "steps": 2}}
    ).result(60)
    progress = [
        n["params"]
        for n in host.notifications
        if n["method"] == "notifications/progress" and n["params"]["requestId"] == response["id"]
    ]
    assert [(p["progress"], p.get("message")) for p in progress] == [
        (0, "step 0"),
        (1, "step 1"),
        (2, "done"),
    ]


def test_resources_paginate_per_server_and_across_servers(host: HostProcess) -> None:
    first = host.call("resources/list", {"server": "everything_old"})
    assert first["server"] == "everything_old" and len(first["resources"]) == 10 and first["nextCursor"]
    uris = [r["uri"] for r in first["resources"]]
    cursor = first["nextCursor"]
    while cursor:
        page = host.call("resources/list", {"server": "everything_old", "cursor": cursor})
        uris += [r["uri"] for r in page["resources"]]
        cursor = page.get("nextCursor")
    assert len(uris) == len(set(uris)) == 100

    everything = host.call("resources/list")
    assert everything["failedServers"] == []
    servers = [r["server"] for r in everything["resources"]]
    assert servers == sorted(servers)
    assert [r["uri"] for r in everything["resources"] if r["server"] == "everything_old"] == uris
    assert len([s for s in servers if s == "paged"]) == 25
    assert len([s for s in servers if s == "looping"]) == 20
    assert "off" not in servers and "time" not in servers  # time has no resources


def test_cursor_without_server_is_invalid_params(host: HostProcess) -> None:
    with pytest.raises(HostError) as caught:
        host.call("resources/list", {"cursor": "MTA="})
    assert caught.value.code == -32602 and "server" in caught.value.message


def test_templates_read_and_prompts(host: HostProcess) -> None:
    templates = host.call("resources/templates/list", {"server": "demo"})["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["demo://item/{item_id}"]
    every = host.call("resources/templates/list")
    assert {t["server"] for t in every["resourceTemplates"]} >= {"demo", "everything_old"}
    contents = host.call("resources/read", {"server": "demo", "uri": "demo://static"})["contents"]
    assert contents == [{"uri": "demo://static", "mimeType": "text/plain", "text": "static text"}]
    prompts = host.call("prompts/list")["prompts"]
    assert {"server": "demo", "name": "greet"} in [
        {"server": p["server"], "name": p["name"]} for p in prompts
    ]
    got = host.call("prompts/get", {"server": "demo_http", "name": "greet", "arguments": {"name": "Ada"}})
    assert got["messages"][0]["content"]["text"] == "Say hello to Ada"


def test_server_errors_pass_through_with_the_server_named(host: HostProcess) -> None:
    with pytest.raises(HostError) as caught:
        host.call("resources/read", {"server": "everything_old", "uri": "test://nope"})
    # server-everything answers -32603 "Unknown resource: …": passed through as the server sent it.
    assert (caught.value.code, caught.value.message) == (-32603, "Unknown resource: test://nope")
    assert caught.value.data["server"] == "everything_old"
    with pytest.raises(HostError) as caught:
        host.call("resources/read", {"server": "demo", "uri": "demo://nope"})
    assert caught.value.code == -32602 and caught.value.data["server"] == "demo"
    failed = call(host, "demo", "fail", {"message": "boom"})
    assert failed["isError"] is True and "boom" in failed["content"][0]["text"]


def test_filters_unknown_and_disabled(host: HostProcess) -> None:
    assert call(host, "filtered", "echo", {"text": "ok"})["content"][0]["text"] == "ok"
    for tool in ("fail", "slow"):
        with pytest.raises(HostError) as caught:
            call(host, "filtered", tool, {"message": "x"})
        assert caught.value.code == -32012
    with pytest.raises(HostError) as caught:
        call(host, "nosuch", "echo")
    assert caught.value.code == -32011 and "nosuch" in caught.value.message
    with pytest.raises(HostError) as caught:
        call(host, "off", "echo", {"text": "x"})
    assert caught.value.code == -32000 and "disabled" in caught.value.message


def test_invalid_params_name_the_field(host: HostProcess) -> None:
    with pytest.raises(HostError) as caught:
        host.call("tools/call", {"server": "demo"})
    assert caught.value.code == -32602 and "tool" in caught.value.message
    with pytest.raises(HostError) as caught:
        host.call("tools/call", {"server": "demo", "tool": "echo", "timeoutMs": -5})
    assert caught.value.code == -32602 and "timeoutMs" in caught.value.message


def test_a_5_mib_result_arrives_intact_through_chunks(host: HostProcess) -> None:
    before = len(host.frame_sizes)
    result = call(host, "demo", "big", {"mib": 5})
    text = result["content"][0]["text"]
    assert text.endswith("END") and 'abc"def\\ghi\nélan😀 ' in text
    assert len(json.dumps(result).encode()) > 5 * 1024 * 1024
    sizes = host.frame_sizes[before:]
    assert len(sizes) > 5 and max(sizes) <= 1024 * 1024


def test_cancel_reaches_the_server(host: HostProcess, markers: Path) -> None:
    future: Future[dict[str, Any]] = host.submit(
        "tools/call",
        {"server": "demo", "tool": "slow", "arguments": {"seconds": 60, "steps": 60, "tag": "c1"}},
    )
    request_id = next(rid for rid, f in list(host._pending.items()) if f is future)
    host.wait_for(
        lambda notes: any(
            n["method"] == "notifications/progress" and n["params"]["requestId"] == request_id for n in notes
        )
    )
    host.cancel(request_id)
    response = future.result(30)
    assert response["error"]["code"] == -32800
    deadline = time.monotonic() + 30
    while not (markers / "cancelled-c1").exists():
        assert time.monotonic() < deadline, "the server never saw notifications/cancelled"
        time.sleep(0.05)
    assert call(host, "demo", "add", {"a": 1, "b": 1})["structuredContent"] == {"result": 2}


def test_timeout_ms_bounds_a_call_and_the_server_stays_usable(host: HostProcess) -> None:
    with pytest.raises(HostError) as caught:
        call(host, "demo_http", "slow", {"seconds": 30, "steps": 30}, timeoutMs=300)
    assert (
        caught.value.code == -32001
        and "raise `tool_timeout_sec` under [mcp_servers.demo_http]" in caught.value.message
    )
    assert call(host, "demo_http", "echo", {"text": "still here"})["content"][0]["text"] == "still here"


def test_500_concurrent_calls_nothing_lost_or_duplicated(host: HostProcess) -> None:
    servers = ["demo", "demo_http", "demo_sse", "everything_old", "paged"]
    futures = []
    for n in range(500):
        server = servers[n % len(servers)]
        if server == "everything_old":
            futures.append(
                (
                    f"e{n}",
                    host.submit(
                        "tools/call", {"server": server, "tool": "echo", "arguments": {"message": f"e{n}"}}
                    ),
                )
            )
        elif server == "paged":
            futures.append(
                (
                    f"tool_{n % 25:02d}",
                    host.submit("tools/call", {"server": server, "tool": f"tool_{n % 25:02d}"}),
                )
            )
        else:
            futures.append(
                (
                    f"m{n}",
                    host.submit(
                        "tools/call", {"server": server, "tool": "echo", "arguments": {"text": f"m{n}"}}
                    ),
                )
            )
    for expected, future in futures:
        response = future.result(120)
        assert "result" in response, response
        assert response["result"]["content"][0]["text"].endswith(expected)
    assert host.violations == []


def test_secrets_stay_out_of_logs(host: HostProcess, dirs: HostDirs) -> None:
    texts = [path.read_text(errors="replace") for path in dirs.logs.rglob("*.log*")]
    assert texts and all(TOKEN not in text for text in texts)
    assert TOKEN not in json.dumps(host.call("servers/list"))


def test_tools_list_right_after_initialize_answers_with_what_is_ready(tmp_path: Path) -> None:
    with running_host(HostDirs.under(tmp_path), stdio_server("demo", "demo_server.py")) as fresh:
        servers = fresh.initialize()["servers"]
        assert [s["status"] for s in servers] == ["starting"]
        assert (servers[0]["toolTimeoutSec"], servers[0]["startupTimeoutSec"]) == (60, 10)
        assert isinstance(fresh.call("tools/list", timeout=15)["tools"], list)  # at most ~1 s of waiting
        fresh.wait_ready("demo")
        tools = fresh.call("tools/list")["tools"]
        assert {"echo", "add", "slow"} <= {t["name"] for t in tools}
        assert all(t["available"] for t in tools)
