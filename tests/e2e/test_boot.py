"""Python's boot as a person meets it (issue 12): the popup opens before Python is ready, a call made while
Python boots waits and succeeds, the boot is restored from the build's verified memory snapshot, and a
snapshot that fails its check is not used, and no extension page freezes while Python boots.

Extension pages share one renderer thread. The freeze check watches an extension page with no work of its
own (the build's `build-info.json`) from the moment the offscreen document that starts Python exists until
Python is ready: before issue 12 that thread stalled 2.3-3.7 s in that window; with Python off it, 5-10 ms
(a few % of the boot at any load).
(Before the document exists, Chromium's own start-up stalls a fresh profile's page 40-150 ms whether or not
any Python starts.) The tighter target (≤ 50 ms) is a figure in `build.py bench`, not here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from tests.support.boot_probe import PLAN_CALL, BootRun, send, watch_boot
from tests.support.browser import EXTENSION_DIR, launch

pytestmark = pytest.mark.e2e

RUNS = 3
# Python on the pages' thread froze them for most of its boot (2.3-3.7 s of a 3.4-3.7 s boot); off it, the
# longest gap is a small share of the boot at any load (5-10 ms of a ~1 s boot quiet; 140-340 ms at load
# 15-20, where boots take 4-15 s and a fixed bound of 100 ms failed). The figure in ms (≤ 50) is
# `build.py bench`'s, not a test's.
FROZEN_SHARE = 0.25
IDLE_PAGE = "build-info.json"


@pytest.fixture(scope="module")
def boots(pw: Playwright, tmp_path_factory: pytest.TempPathFactory) -> list[BootRun]:
    return [watch_boot(pw, tmp_path_factory.mktemp(f"boot-{i}")) for i in range(RUNS)]


@pytest.fixture(scope="module")
def idle_page_boots(pw: Playwright, tmp_path_factory: pytest.TempPathFactory) -> list[BootRun]:
    return [watch_boot(pw, tmp_path_factory.mktemp(f"idle-{i}"), page_path=IDLE_PAGE) for i in range(RUNS)]


def test_no_extension_page_freezes_while_python_boots(idle_page_boots: list[BootRun]) -> None:
    # A busy machine stalls one boot now and then: the calmest of the runs tells the two designs apart.
    assert all(run.plan_answer["success"] is True for run in idle_page_boots)
    seen = sorted((run.worst_stall_in_boot_ms, run.boot_window_ms) for run in idle_page_boots)
    shares = [stall / window for stall, window in seen if window > 0]
    assert shares, f"no boot window was seen: {seen}"
    assert min(shares) <= FROZEN_SHARE, f"an extension page stalled for (longest gap, boot) ms {seen}"


def test_the_probed_popup_was_open_before_python_was_ready(boots: list[BootRun]) -> None:
    for run in boots:
        assert run.page_started_at < run.ready["bootedAt"], (run.page_started_at, run.ready)


def test_a_call_made_while_python_boots_waits_and_succeeds(boots: list[BootRun]) -> None:
    for run in boots:
        assert run.plan_answer["success"] is True, run.plan_answer
        assert run.plan_answer["output"] == {
            "type": "function_call_output",
            "call_id": PLAN_CALL["call_id"],
            "output": "Plan updated",
        }


def test_python_is_restored_from_the_build_snapshot(boots: list[BootRun]) -> None:
    for run in boots:
        assert run.ready["python"] == "ready", run.ready
        assert run.ready["bootPhase"] is None
        assert run.ready["boot"]["path"] == "snapshot", run.ready["boot"]
        assert run.ready["boot"]["fallback"] is None
        assert run.ready["bootMs"] > 0


def test_a_snapshot_that_fails_its_sha256_check_is_not_used(pw: Playwright, tmp_path: Path) -> None:
    extension = tmp_path / "extension"
    shutil.copytree(EXTENSION_DIR, extension)
    snapshot = extension / "python" / "snapshot.bin"
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(data)
    profile = tmp_path / "profile"
    with launch(pw, profile, extension_dir=extension) as ext:
        booting = ext.send({"type": "status"})  # a full boot takes seconds: it is still under way
        assert booting["python"] == "booting", booting
        assert booting["bootPhase"] in {"loading", "restoring", "starting"}, booting
        status = ext.wait_python_ready(timeout_s=180)  # CPython compiles every module
        assert status["boot"]["path"] == "full"
        assert "python/snapshot.bin: sha256" in status["boot"]["fallback"]
        answer = send(ext.page, {"type": "dispatch", "item": PLAN_CALL})
        assert answer["success"] is True, answer
