"""Secrets in any common encoding (contract §8.2), end to end: a real MCP server shows a configured secret
base64- and hex-encoded, split between two content blocks and broken up by zero-width spaces; neither the
answer nor the history Chromium keeps holds it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Playwright

from tests.host.servers.encoding_server import FORMS
from tests.support.browser import Extension, install_host, launch
from tests.support.polling import wait_for

pytestmark = pytest.mark.e2e

ENCODING = Path(__file__).resolve().parents[1] / "host" / "servers" / "encoding_server.py"
SECRET = "sk-e2e-forms-0123456789"


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-secret-forms")
    config = profile / "config.toml"
    config.write_text(
        f"[mcp_servers.enc]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(ENCODING))}]\n"
        f'env = {{ ENC_SECRET = "{SECRET}" }}\n'
    )
    install_host(profile, config, env=host_env)
    with launch(pw, profile, env=host_env) as extension:
        extension.wait_python_ready()
        wait_for(
            lambda: [s["status"] for s in extension.send({"type": "status"})["servers"]] == ["ready"],
            "the encoding server ready",
        )
        assert extension.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
        yield extension


def shown(ext: Extension, form: str) -> list[str]:
    arguments = {"form": form}  # the server shows its configured secret of itself
    item = {
        "type": "function_call",
        "name": "mcp__enc__show",
        "arguments": json.dumps(arguments),
        "call_id": form,
    }
    answer: dict[str, Any] = ext.dispatch(item)
    assert answer["success"] is True, answer
    return [block["text"] for block in answer["output"]["result"]["Ok"]["content"]]


def bare(text: str) -> str:
    return re.sub(r"[\s\u200b]", "", text)


@pytest.mark.parametrize("form", ["base64", "base64-inside-1", "hex", "split", "zero-width"])
def test_a_secret_shown_encoded_split_or_broken_up_reaches_neither_the_answer_nor_the_history(
    ext: Extension, form: str
) -> None:
    sent = bare(FORMS[form](SECRET)) if form in FORMS else SECRET
    texts = shown(ext, form)
    assert all("[redacted]" in text for text in texts), texts
    assert sent not in bare("".join(texts)), texts
    history = [entry for entry in ext.send({"type": "history"}) if entry.get("name") == "mcp__enc__show"]
    assert history and sent not in bare(json.dumps(history, ensure_ascii=False))
