"""Real agent CLIs started while the browser is closed (contract §8.2, "clients know where they stand"): each
lists Tabgate's fixed tools, a call says to open Chrome, and once the browser is opened after the agent the
same running client's next call works (codex 0.169 never re-lists, so this holds only if the tools were there
from the start). All four clients run at once, around one browser."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from tests.clients.client_runs import fenced_blocks
from tests.support.agent_clis import CLIENTS, client_home, finish
from tests.support.agents import default_place_free
from tests.support.gateway_browser import browser, env, gateway, profile, site
from tests.support.scripted_model import Call, Say, ScriptedModel, Step, scripted_model

pytestmark = pytest.mark.clients

__all__ = ["env", "profile", "site"]  # the shared module fixtures

FIRST_RESULT_SECONDS = 120


@dataclass(frozen=True)
class Outcome:
    offered_while_down: list[str]
    results: list[str]
    returncode: int | None
    output: str


def _first_results(models: dict[str, ScriptedModel], processes: dict[str, subprocess.Popen[str]]) -> None:
    """Wait until every client that still runs has had its call answered while the browser was closed."""
    deadline = time.monotonic() + FIRST_RESULT_SECONDS
    while time.monotonic() < deadline:
        waiting = [
            name for name, model in models.items() if not model.results and processes[name].poll() is None
        ]
        if not waiting:
            return
        time.sleep(0.2)


@pytest.fixture(scope="module")
def outcomes(pw: Playwright, profile: Path, env: dict[str, str]) -> Iterator[dict[str, Outcome]]:
    default_place_free()  # no browser of any run serves agents now: each client starts with it closed
    opened = threading.Event()
    script: list[Step] = [
        Call("browser_tab", {"action": "query"}),
        Call("browser_tab", {"action": "query"}, after=opened),
        Say("done"),
    ]
    with ExitStack() as stack:
        homes = {name: stack.enter_context(client_home(name))[0] for name in CLIENTS}
        models = {name: stack.enter_context(scripted_model(cli.api, script)) for name, cli in CLIENTS.items()}
        processes = {name: cli.run(homes[name], models[name].origin) for name, cli in CLIENTS.items()}
        try:
            _first_results(models, processes)
            offered = {name: model.offered for name, model in models.items()}
            with browser(pw, profile, env) as ext:
                gateway(ext, True)
                opened.set()
                outputs = {name: finish(process, homes[name], name) for name, process in processes.items()}
                gateway(ext, False)
        finally:
            opened.set()
            for process in processes.values():
                process.kill() if process.poll() is None else None
        yield {
            name: Outcome(offered[name], models[name].results, processes[name].returncode, outputs[name])
            for name in CLIENTS
        }


@pytest.mark.parametrize("client", list(CLIENTS))
def test_started_before_the_browser_the_client_lists_is_told_and_works_once_it_opens(
    client: str, outcomes: dict[str, Outcome]
) -> None:
    seen = outcomes[client]
    assert seen.returncode == 0, seen.output
    assert any(name.endswith("browser_tab") for name in seen.offered_while_down), (
        f"{client} was offered no Tabgate tool while the browser was closed: {seen.offered_while_down}"
    )
    assert len(seen.results) == 2, f"{seen.results!r}\n{seen.output}"
    down, up = seen.results
    # The host's words on what to do, as the client relayed them (each client wraps them its own way).
    assert "open chrome with tabgate" in down.lower(), down
    assert "open chrome" not in up.lower() and fenced_blocks(up), up  # its (empty) tab list, fenced
