"""MCP Apps as the core decides them (contract §10): the View's CSP never wider than its metadata, the
bridge's answers to each View message, the person asked before a View's call changes things, and tools
without "model" in their visibility kept from agents."""

from __future__ import annotations

import re
from typing import Any

import pytest
from core_fakes import FakeHost, FakeServer, FakeTool, connect, text_result

from core.calls.capabilities import McpErrorCode
from core.host_link.app_meta import APP_MIME_TYPE, view_document, view_policy
from core.mcp_apps.app_bridge import TEARDOWN_ID
from core.runtime.facade import Service
from tests.core.test_core_gateway import Setup

pytestmark = pytest.mark.unit

VIEW = "ui://counter/view.html"
DEFAULT_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; frame-src 'none'; "
    "base-uri 'none'; form-action 'none'; object-src 'none'"
)


def app_host(csp: dict[str, Any] | None = None, mime: str = APP_MIME_TYPE) -> FakeHost:
    meta = {"_meta": {"ui": {"csp": csp}}} if csp is not None else {}
    return FakeHost(
        {
            "counter": FakeServer(
                tools=[
                    FakeTool("counter", ui={"resourceUri": VIEW}),
                    FakeTool("bump", ui={"resourceUri": VIEW, "visibility": ["app"]}),
                    FakeTool("peek", annotations={"readOnlyHint": True}),
                    FakeTool("secret", ui={"resourceUri": VIEW, "visibility": ["model"]}),
                ],
                contents={VIEW: [{"uri": VIEW, "mimeType": mime, "text": "<p>hi</p>", **meta}]},
            ),
            "other": FakeServer(tools=[FakeTool("steal", annotations={"readOnlyHint": True})]),
        }
    )


async def connected(host: FakeHost) -> Service:
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host)
    return svc


def rpc(method: str, params: dict[str, Any] | None = None, id: int | None = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if id is not None:
        message["id"] = id
    return message


async def request(svc: Service, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return await svc.handle(
        {"type": "app/request", "tool": "mcp__counter__counter", "message": message, **extra}
    )


# --- the CSP ----------------------------------------------------------------------------------------------


def test_without_metadata_the_view_gets_the_default_policy() -> None:
    assert view_policy(None).csp == DEFAULT_CSP
    assert view_policy(None).proxy == "frame-src 'none'"  # the View's frame may navigate nowhere


def test_the_policy_names_only_the_domains_given_for_each_purpose() -> None:
    policy = view_policy(
        {
            "connectDomains": ["https://api.example.test"],
            "resourceDomains": ["https://cdn.example.test"],
            "frameDomains": ["https://*.frames.example.test"],
            "baseUriDomains": ["https://base.example.test"],
        }
    )
    directives = dict(d.split(" ", 1) for d in policy.csp.split("; "))
    assert directives["connect-src"] == "https://api.example.test"
    assert directives["script-src"] == "'self' 'unsafe-inline' https://cdn.example.test"
    assert directives["img-src"] == "'self' data: https://cdn.example.test"
    assert directives["frame-src"] == "https://*.frames.example.test"
    assert directives["base-uri"] == "https://base.example.test"
    assert policy.proxy == "frame-src https://*.frames.example.test"
    assert directives["default-src"] == "'none'" and directives["object-src"] == "'none'"


@pytest.mark.parametrize(
    "domain",
    [
        "*",
        "https:",
        "https://*",
        "'unsafe-eval'",
        "https://a.test; script-src *",
        "https://a.test 'unsafe-eval'",
        "javascript:alert(1)",
        'https://a.test"><script>',
        "data:",
        "https://a.test/path",
    ],
)
def test_a_source_that_could_widen_the_policy_is_dropped(domain: str) -> None:
    policy = view_policy({"connectDomains": [domain], "resourceDomains": [domain]})
    assert policy.csp == DEFAULT_CSP
    assert policy.dropped == (domain, domain)


def test_the_policy_comes_first_in_the_document_and_its_text_cannot_end_the_attribute() -> None:
    document = view_document(
        '<meta http-equiv="Content-Security-Policy" content="default-src *">', view_policy(None)
    )
    assert document.startswith(
        f'<!doctype html><meta http-equiv="Content-Security-Policy" content="{DEFAULT_CSP}">'
    )


# --- app/view ---------------------------------------------------------------------------------------------


async def test_the_view_is_read_from_the_tools_server_with_the_messages_to_send_after_initialized() -> None:
    host = app_host({"connectDomains": ["https://api.example.test"]})
    svc = await connected(host)
    answer = {"output": {"type": "mcp_tool_call_output", "call_id": "c", "result": {"Ok": text_result("7")}}}
    view = await svc.handle(
        {"type": "app/view", "tool": "mcp__counter__counter", "arguments": {"n": 7}, "answer": answer}
    )
    assert host.requests[-1].method == "resources/read"
    assert host.requests[-1].params == {"server": "counter", "uri": VIEW}
    assert "connect-src https://api.example.test" in view["csp"]
    assert view["document"].endswith("<p>hi</p>")
    assert [m["method"] for m in view["afterInitialized"]] == [
        "ui/notifications/tool-input",
        "ui/notifications/tool-result",
    ]
    assert view["afterInitialized"][0]["params"] == {"arguments": {"n": 7}}
    assert view["afterInitialized"][1]["params"] == text_result("7")
    assert view["teardown"]["method"] == "ui/resource-teardown"
    cancelled = await svc.handle({"type": "app/view", "tool": "mcp__counter__counter", "cancelled": True})
    assert cancelled["afterInitialized"][1]["method"] == "ui/notifications/tool-cancelled"


async def test_a_resource_that_is_not_an_apps_html_is_not_shown() -> None:
    svc = await connected(app_host(mime="text/html"))
    answer = await svc.handle({"type": "app/view", "tool": "mcp__counter__counter"})
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS
    assert "not text/html;profile=mcp-app" in answer["error"]["message"]
    without = await svc.handle({"type": "app/view", "tool": "mcp__counter__peek"})
    assert "has no App" in without["error"]["message"]


# --- app/request ------------------------------------------------------------------------------------------


async def test_initialize_answers_the_popups_theme_and_initialized_releases_the_queued_messages() -> None:
    svc = await connected(app_host())
    answer = await request(svc, rpc("ui/initialize", {"protocolVersion": "2026-01-26"}), theme="dark")
    assert answer["action"] == "reply" and answer["reply"]["id"] == 1
    assert answer["reply"]["result"]["hostContext"]["theme"] == "dark"
    assert await request(svc, rpc("ui/notifications/initialized", id=None)) == {"action": "initialized"}
    resized = await request(svc, rpc("ui/notifications/size-changed", {"height": 99_999}, id=None))
    assert resized == {"action": "resize", "height": 2000}
    torn = await request(svc, {"jsonrpc": "2.0", "id": TEARDOWN_ID, "result": {}})
    assert torn == {"action": "tornDown"}
    changed = await svc.handle({"type": "app/theme", "theme": "light"})
    assert changed["notification"]["method"] == "ui/notifications/host-context-changed"
    assert changed["notification"]["params"] == {"theme": "light"}
    bad = await svc.handle({"type": "app/theme", "theme": "<b>"})
    assert bad["error"]["code"] == McpErrorCode.INVALID_PARAMS


async def test_a_views_call_that_may_change_things_waits_for_the_persons_yes() -> None:
    host = app_host()
    svc = await connected(host)
    call = rpc("tools/call", {"name": "bump", "arguments": {"by": 1}})
    asked = await request(svc, call)
    assert asked["action"] == "ask" and "mcp__counter__bump" in asked["question"]
    assert "tools/call" not in host.methods()
    denied = await request(svc, call, approved=False)
    assert denied["reply"]["error"]["message"] == "the person did not allow this call"
    assert "tools/call" not in host.methods()
    allowed = await request(svc, call, approved=True)
    assert allowed["reply"]["result"] == text_result('echo:{"by": 1}')
    assert host.requests[-1].params == {"server": "counter", "tool": "bump", "arguments": {"by": 1}}
    reading = await request(svc, rpc("tools/call", {"name": "peek", "arguments": {}}))
    assert reading["action"] == "reply" and "result" in reading["reply"]  # only reads: nobody is asked


async def test_a_view_reaches_only_its_own_servers_tools_meant_for_apps() -> None:
    host = app_host()
    svc = await connected(host)
    secret = await request(svc, rpc("tools/call", {"name": "secret"}), approved=True)
    assert secret["reply"]["error"]["message"] == "the tool 'secret' is not for Apps to call"
    steal = await request(svc, rpc("tools/call", {"name": "steal"}))
    assert "offers no tool" in steal["reply"]["error"]["message"]
    read = await request(svc, rpc("resources/read", {"uri": VIEW}))
    assert host.requests[-1].params == {"server": "counter", "uri": VIEW} and "result" in read["reply"]
    assert "tools/call" not in host.methods()


async def test_open_link_asks_first_and_other_methods_are_refused_never_ignored() -> None:
    svc = await connected(app_host())
    link = rpc("ui/open-link", {"url": "https://example.test/docs"})
    asked = await request(svc, link)
    assert asked["action"] == "ask" and "https://example.test/docs" in asked["question"]
    opened = await request(svc, link, approved=True)
    assert opened["open"] == "https://example.test/docs" and opened["reply"]["result"] == {}
    bad = await request(svc, rpc("ui/open-link", {"url": "javascript:alert(1)"}), approved=True)
    assert "open" not in bad and bad["reply"]["error"]["code"] == McpErrorCode.INVALID_PARAMS
    for method, code in [("ui/message", -32000), ("ui/request-display-mode", -32000), ("eval", -32601)]:
        answer = await request(svc, rpc(method))
        assert answer["reply"]["error"]["code"] == code, method
    spoof = await request(svc, rpc("ui/initialize", id=TEARDOWN_ID))  # type: ignore[arg-type]
    assert spoof["action"] == "ignore"


# --- visibility for agents ----------------------------------------------------------------------------------


async def test_agents_are_not_offered_tools_whose_visibility_lacks_model() -> None:
    setup = await Setup(host=app_host(), gateway=True, gatewayMcp=True).start()
    names = set(await setup.tools())
    assert {"mcp__counter__counter", "mcp__counter__secret"} <= names
    assert "mcp__counter__bump" not in names
    refused = await setup.call("mcp__counter__bump", {"by": 1})
    assert refused["isError"] is True and re.search("offers no tool", refused["content"][0]["text"])
