"""Who an agent is when an interpreter runs it, and the name it gives itself (contract §8.2): two scripts of
one interpreter are two agents, trust never covers a bare interpreter, and a name cannot pass for a path."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_core_gateway import SHOP, Setup

from core.agents.agent_names import MAX_NAME, clean_name

pytestmark = pytest.mark.unit

NODE = "/usr/bin/node"
GEMINI = {
    "name": "gemini-cli-mcp-client",
    "version": "0.61.0",
    "executable": NODE,
    "runs": {"kind": "script", "target": "/opt/gemini/bundle/gemini.js"},
}
INSPECTOR = {
    "name": "gemini-cli-mcp-client",  # the same name: only the script tells them apart
    "version": "0.61.0",
    "executable": NODE,
    "runs": {"kind": "script", "target": "/opt/inspector/cli/build/cli.js"},
}
INLINE = {"name": "gemini-cli-mcp-client", "executable": NODE, "runs": {"kind": "inline"}}


async def acts_unasked(setup: Setup, agent: dict[str, Any], session: str) -> bool:
    """Whether the agent's acting call ran without a question (a question is denied at once)."""
    await setup.tools(agent, session)
    await setup.share(SHOP["id"], agent=agent)
    call = setup.call("browser_tab", {"action": "activate", "tabId": 7}, agent=agent, session=session)
    for _ in range(200):
        if call.done():
            return (await call)["isError"] is False
        pending = (await setup.send({"type": "approvals"}))["pending"]
        if pending:
            await setup.answer(pending[0]["id"], "deny")
            await call
            return False
        await asyncio.sleep(0.005)
    raise AssertionError("the call neither ran nor asked")


async def agent_of(setup: Setup, agent: dict[str, Any]) -> dict[str, Any]:
    by_program = {a["program"]: a for a in await setup.agents()}
    program = (
        f"{agent['executable']} {agent['runs']['target']}" if agent["runs"]["kind"] == "script" else None
    )
    return (
        by_program[program]
        if program
        else next(a for a in by_program.values() if "command line" in a["program"])
    )


async def test_two_scripts_of_one_interpreter_are_two_agents_and_trusting_one_does_not_trust_the_other() -> (
    None
):
    trusted = {"executable": NODE, "script": GEMINI["runs"]["target"]}
    setup = await Setup(gateway=True, gatewayTrusted=[trusted]).start()
    assert await acts_unasked(setup, GEMINI, "s1") is True
    assert await acts_unasked(setup, INSPECTOR, "s2") is False
    gemini, inspector = await agent_of(setup, GEMINI), await agent_of(setup, INSPECTOR)
    assert gemini["id"] != inspector["id"]
    assert (gemini["trusted"], inspector["trusted"]) == (True, False)
    assert gemini["trustEntry"] == trusted and inspector["trustEntry"] == {
        **trusted,
        "script": INSPECTOR["runs"]["target"],
    }


@pytest.mark.parametrize("interpreter", [NODE, "/usr/bin/python3.13", "/usr/local/bin/nodejs", "/bin/bash"])
async def test_trust_in_an_interpreter_alone_is_refused_naming_it_and_an_old_stored_one_is_dropped(
    interpreter: str,
) -> None:
    setup = await Setup(gateway=True).start()
    refused = await setup.send(
        {"type": "config/set", "patch": {"gatewayTrusted": ["/usr/bin/codex", interpreter]}}
    )
    assert f"{interpreter!r} is the interpreter" in refused["error"]["message"]
    assert "trust the script instead" in refused["error"]["message"]
    assert setup.service.config()["gatewayTrusted"] == []  # nothing of the patch applied
    stored = {"gateway": True, "gatewayTrusted": ["/usr/bin/codex", interpreter]}
    assert (await setup.send({"type": "config/load", "config": stored}))["gatewayTrusted"] == [
        "/usr/bin/codex"
    ]


async def test_an_interpreter_running_inline_code_is_never_trusted_and_the_person_is_told_why() -> None:
    setup = await Setup(gateway=True).start()
    assert await acts_unasked(setup, INLINE, "s1") is False
    inline = await agent_of(setup, INLINE)
    assert (inline["trusted"], inline["trustEntry"]) == (False, None)
    assert inline["program"] == "/usr/bin/node (code given on its command line)"
    assert inline["notTrustable"].startswith(
        "Cannot act without asking: it is the interpreter node and it runs code"
    )
    assert await acts_unasked(setup, GEMINI, "s2") is False  # a script node runs, not trusted yet


async def test_a_name_imitating_a_path_is_shown_cleaned_after_the_program() -> None:
    setup = await Setup(gateway=True).start()
    forged = {**INSPECTOR, "name": "codex — /opt/codex/bin/codex\u202e\u200b"}
    await setup.tools(forged)
    await setup.share(SHOP["id"], agent=forged)
    asking = setup.call("browser_tab", {"action": "activate", "tabId": 7}, agent=forged)
    [request] = await setup.pending()
    assert request["executable"] == f"{NODE} /opt/inspector/cli/build/cli.js"
    assert request["agent"] == "codex opt codex bin codex"
    assert request["label"] == f"{NODE} /opt/inspector/cli/build/cli.js · “codex opt codex bin codex”"
    await setup.answer(request["id"], "deny")
    await asking


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("codex — /opt/codex/bin/codex", "codex opt codex bin codex"),
        ("claude-code", "claude-code"),
        ("gemini–cli", "gemini-cli"),  # an en dash between letters is a hyphen
        ("codex - C:\\codex\\codex.exe", "codex C: codex codex.exe"),
        ("codex ／usr／bin", "codex usr bin"),  # fullwidth solidus
        ("co\u200bdex\u202e\u2066 \x07x", "codex x"),  # zero-width, bidi and control characters go
        ("-- codex --", "codex"),
        ("\u200b", "unnamed"),
        ("a" * 200, "a" * (MAX_NAME - 1) + "…"),
    ],
)
def test_a_name_is_cleaned_of_paths_separator_dashes_and_invisible_characters(given: str, shown: str) -> None:
    assert clean_name(given) == shown
