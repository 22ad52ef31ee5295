"""Real agents' first tool result (contract §8.2): codex and Claude Code, set up by `tabgate-host connect`,
started with the browser up and the gateway on; the time from starting the client's process to the moment its
scripted model receives the result of its first Tabgate call (`browser_tab query`), a few runs each."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.sync_api import sync_playwright

from tests.support.agent_clis import CLIENTS, client_home, finish
from tests.support.bench_gateway import _connected, _gateway_browser
from tests.support.browser import launch
from tests.support.scripted_model import Call, Say, Step, scripted_model

if TYPE_CHECKING:
    from tests.support.bench import Figure

RUNS = 5
MEASURED = ("codex", "claude-code")
SCRIPT: list[Step] = [Call("browser_tab", {"action": "query"}), Say("done")]


def _first_result_seconds(client: str) -> float:
    cli = CLIENTS[client]
    with client_home(client) as (home, _config), scripted_model(cli.api, SCRIPT) as model:
        started = time.monotonic()
        process = cli.run(home, model.origin)
        output = finish(process, home, client)
        if model.first_result_at is None:
            raise RuntimeError(f"{client} sent no tool result back: {output}")
        return model.first_result_at - started


def first_results() -> list[Figure]:
    from tests.support.bench import Figure, median  # bench imports this module

    figures = []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        profile, env = _gateway_browser(Path(tmp))
        with launch(pw, profile, env=env) as ext:
            _connected(ext)
            for client in MEASURED:
                samples = [_first_result_seconds(client) for _ in range(RUNS)]
                figures.append(
                    Figure(
                        f"first_tool_result_{client.replace('-', '_')}",
                        median(samples),
                        "s",
                        "≤ 3",
                        note=f"process start → its model has browser_tab query's result; runs "
                        f"{min(samples):.2f}–{max(samples):.2f} s, median of {RUNS}",
                    )
                )
    return figures
