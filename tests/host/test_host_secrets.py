"""Secrets stay home: a configured secret that a real MCP server echoes back (tool result, its structured
content, a resource, a prompt, a progress message) reaches the browser and agents as `[redacted]`, while
short or plain values (settings such as `true` or `8080`) leave ordinary text alone."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import shutil
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import HostDirs, running_host, stdio_server, toml_str
from hostproc import FakeBrowserSide
from mcp import Client, StdioServerParameters

from native_host.config.redact import REDACTED, Scrubber, scrub_data, worth_hiding
from native_host.config.secret_forms import IGNORED_CLASS
from tests.host.servers.encoding_server import FORMS as FORMS_SHOWN
from tests.support.browser import tabgate_host_bin

pytestmark = pytest.mark.host

SECRET = "sk-env-0123456789"
HEADER = "hdr-value-4242"
SETTINGS = {"SHORT": "abc", "FLAG": "true", "PORT": "8080", "EMPTY": ""}


def leaky_config() -> str:
    env = {"DEMO_SECRET": SECRET, **SETTINGS}
    inline = ", ".join(f"{key} = {toml_str(value)}" for key, value in env.items())
    # A remote server that never answers: its header value is a configured secret all the same.
    remote = (
        f'[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nhttp_headers = {{ X-Key = "{HEADER}" }}\n'
    )
    return stdio_server("leaky", "demo_server.py", extra=f"env = {{ {inline} }}") + remote


def test_a_secret_echoed_by_a_server_arrives_redacted(host_dirs: HostDirs) -> None:
    ordinary = "abc true 8080 on the 4th"
    with running_host(host_dirs, leaky_config()) as host:
        host.initialize()
        host.wait_ready("leaky")
        echoed = host.call(
            "tools/call",
            {"server": "leaky", "tool": "echo", "arguments": {"text": f"<{SECRET}|{HEADER}> {ordinary}"}},
        )
        shown = f"<{REDACTED}|{REDACTED}> {ordinary}"
        assert echoed["content"] == [{"type": "text", "text": shown}]
        assert echoed["structuredContent"] == {"result": shown}
        read = host.call("resources/read", {"server": "leaky", "uri": f"demo://item/{SECRET}"})
        assert read["contents"][0]["uri"] == f"demo://item/{REDACTED}"
        assert json.loads(read["contents"][0]["text"]) == {"id": REDACTED}
        prompt = host.call("prompts/get", {"server": "leaky", "name": "greet", "arguments": {"name": SECRET}})
        assert prompt["messages"][0]["content"]["text"] == f"Say hello to {REDACTED}"
        host.call(
            "tools/call", {"server": "leaky", "tool": "slow", "arguments": {"seconds": 0.2, "tag": SECRET}}
        )
        everything = json.dumps([host.notifications, host.call("servers/list")])
    assert SECRET not in everything and HEADER not in everything


ENV_SECRET = "sk-env-0123456789"
BEARER = "brr/token+55=66&77"  # URL-encoding changes it
CREDENTIAL = "hdr-cred-4242abcd"  # sent as `Authorization: Bearer …`: the credential alone is a secret too
FORMS = [*FORMS_SHOWN, "split"]


def encoding_config() -> str:
    remote = (
        '[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "TG_TEST_BEARER"\n'
        f'http_headers = {{ Authorization = "Bearer {CREDENTIAL}" }}\n'
    )
    return (
        stdio_server("enc", "encoding_server.py", extra=f"env = {{ ENC_SECRET = {toml_str(ENV_SECRET)} }}")
        + remote
    )


def test_a_secret_a_server_encodes_splits_or_breaks_up_arrives_redacted(host_dirs: HostDirs) -> None:
    leaked = []
    with running_host(host_dirs, encoding_config(), env={"TG_TEST_BEARER": BEARER}) as host:
        host.initialize()
        host.wait_ready("enc")
        for secret in (ENV_SECRET, BEARER, CREDENTIAL):
            for form in FORMS:
                arguments = {"value": secret, "form": form}
                shown = host.call("tools/call", {"server": "enc", "tool": "show", "arguments": arguments})
                texts = [block["text"] for block in shown["content"]]
                assert texts[0].startswith("token: ") and texts[-1].endswith(" (end)"), (form, texts)
                # As the server sent it, spaces and zero-width characters taken out.
                sent = FORMS_SHOWN[form](secret) if form in FORMS_SHOWN else secret
                if _bare(sent) in _bare("".join(texts)) or not all(REDACTED in text for text in texts):
                    leaked.append((secret, form, texts))
    assert leaked == []


def _bare(text: str) -> str:
    return re.sub(r"[\s\u200b]", "", text)


def test_base64_at_every_alignment_and_alphabet_and_the_short_secret_rule() -> None:
    scrub = Scrubber([BEARER, "s3cret"])
    for lead in ("", "a", "ab", "abc", "abcd"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            plain = f"{lead}Authorization: {BEARER}\n"
            shown = scrub(f"data {encode(plain.encode()).decode()} data")
            assert REDACTED in shown and shown.startswith("data ") and shown.endswith(" data"), shown
            assert len(shown) < len(f"data {encode(plain.encode()).decode()} data")
    # Lower-case percent escapes, and a secret broken by a soft hyphen and a line break.
    assert scrub("q=brr%2ftoken%2b55%3d66%2677&x") == f"q={REDACTED}&x"
    assert scrub(f"key {BEARER[:6]}\u00ad\n{BEARER[6:]} end") == f"key {REDACTED} end"
    # Shorter than 8 characters: as written (spaces and zero-width characters inside ignored), never encoded,
    # whose few characters would blank out ordinary words.
    assert scrub("s3c\u200bret czNjcmV0 733363726574") == f"{REDACTED} czNjcmV0 733363726574"


def test_a_secret_split_between_neighbouring_texts_is_found_and_other_items_break_the_run() -> None:
    scrub = Scrubber([ENV_SECRET])
    content = [
        {"type": "text", "text": f"a {ENV_SECRET[:5]}"},
        {"type": "text", "text": ENV_SECRET[5:10]},
        {"type": "text", "text": f"{ENV_SECRET[10:]} b"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "text", "text": ENV_SECRET[:9]},
        {"type": "text", "text": "unrelated"},
    ]
    assert scrub_data({"content": content}, scrub)["content"] == [
        {"type": "text", "text": f"a {REDACTED}"},
        {"type": "text", "text": REDACTED},
        {"type": "text", "text": f"{REDACTED} b"},
        content[3],
        {"type": "text", "text": ENV_SECRET[:9]},  # half a secret alone is not the secret
        {"type": "text", "text": "unrelated"},
    ]
    contents = [{"uri": "u://1", "text": ENV_SECRET[:8]}, {"uri": "u://2", "text": ENV_SECRET[8:]}]
    assert [c["text"] for c in scrub_data({"contents": contents}, scrub)["contents"]] == [REDACTED] * 2


def test_the_one_rule_for_what_counts_as_a_secret() -> None:
    assert [worth_hiding(v) for v in ("", "abc", "true", "OFF", "8080", "-1.5", "none", "abcd", "s3cr")] == [
        *[False] * 7,
        True,
        True,
    ]
    scrub = Scrubber([SECRET, *SETTINGS.values()])
    assert scrub(f"abc true 8080 {SECRET}") == f"abc true 8080 {REDACTED}"


def test_base64_payloads_are_left_whole_and_everything_else_is_scrubbed() -> None:
    scrub = Scrubber(["QUJD"])
    result = {
        "content": [
            {"type": "image", "data": "xxQUJDxx", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "u://QUJD", "blob": "QUJD"}},
            {"type": "text", "text": "QUJD", "data": "QUJD"},
        ],
        "structuredContent": {"data": "QUJD", "QUJD": ["QUJD"]},
    }
    assert scrub_data(result, scrub) == {
        "content": [
            {"type": "image", "data": "xxQUJDxx", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": f"u://{REDACTED}", "blob": "QUJD"}},
            {"type": "text", "text": REDACTED, "data": REDACTED},
        ],
        "structuredContent": {"data": REDACTED, REDACTED: [REDACTED]},
    }


def test_with_no_secret_known_a_result_leaves_as_it_is_and_with_one_it_is_scrubbed() -> None:
    # The hot path (docs/benchmarks.md): no secret configured, nothing to take out, so no copy of the result.
    result = {"content": [{"type": "text", "text": f"plain {SECRET[:3]}"}], "structuredContent": {"n": 1}}
    assert scrub_data(result, Scrubber(["", "abc", "true"])) is result
    shown = {"content": [{"type": "text", "text": f"a {SECRET}"}], "isError": False}
    assert scrub_data(shown, Scrubber([SECRET])) == {
        "content": [{"type": "text", "text": f"a {REDACTED}"}],
        "isError": False,
    }
    secret_url = "https://user:pw-0123456789@example.com/mcp?key=k-0123456789"
    only_a_url = Scrubber(urls=[secret_url])  # no secret value, only a URL that carries one
    assert scrub_data({"text": f"see {secret_url}"}, only_a_url)["text"] != f"see {secret_url}"


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="tg-"))  # Unix socket paths are short: keep it out of pytest's tmp
    try:
        yield base / "run"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def page_with_the_secret(method: str, _params: dict[str, Any]) -> Any:
    """The browser's side: a page that shows the secret (the user's own dashboard, say)."""
    if method == "gateway/tools":
        return {"tools": [{"name": "browser_page", "inputSchema": {"type": "object"}}]}
    return {"content": [{"type": "text", "text": f"your key is {SECRET}"}], "isError": False}


def test_what_the_gateway_answers_an_agent_is_scrubbed_too(host_dirs: HostDirs, runtime_dir: Path) -> None:
    env = {"TABGATE_RUNTIME_DIR": str(runtime_dir)}
    with running_host(host_dirs, leaky_config(), env=env) as host:
        host.initialize()
        browser = FakeBrowserSide(host, page_with_the_secret)
        with contextlib.ExitStack() as stack:
            stack.callback(browser.stop)
            host.notify("gateway/state", {"enabled": True})
            deadline = time.monotonic() + 20
            while not (runtime_dir / "gateway.sock").exists():
                assert time.monotonic() < deadline, "the gateway socket did not appear"
                time.sleep(0.05)
            params = StdioServerParameters(command=str(tabgate_host_bin()), args=["mcp"], env=env)

            async def agent() -> types.CallToolResult:
                async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
                    with anyio.fail_after(20):
                        while not (await client.list_tools()).tools:
                            await anyio.sleep(0.1)
                    return await client.call_tool("browser_page", {})

            result = anyio.run(agent)
    assert result.content == [types.TextContent(type="text", text=f"your key is {REDACTED}")]


def test_the_ignored_characters_are_whitespace_and_every_format_character_of_this_pythons_unicode() -> None:
    ignored = re.compile(f"[{IGNORED_CLASS}]")
    expected = {
        c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() or unicodedata.category(c) == "Cf"
    }
    assert {c for c in map(chr, range(sys.maxunicode + 1)) if ignored.match(c)} == expected
