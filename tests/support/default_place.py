"""Who may use the gateway's default place (machine-wide, from the uid alone) while tests run side by side.

A test that serves or reaches agents there claims it through a lock file first and gives it back when done
(`release`, called by the tiers' conftests after each test or module), so test runs and tiers running at the
same time take turns. Every other host a test starts is kept apart (`kept_apart`): a host writes its state
for agents (`host.json`) at its place from its start, and one of another tier at the default place would
tell an agent there a wrong story (e.g. "the gateway is off" while the browser under test is closed)."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Mapping
from pathlib import Path

from native_host.gateway.place import ENV_RUNTIME_DIR

LOCK_WAIT_S = 1800  # another run may hold the place for a whole tier

_held: list[int] = []  # the lock's file descriptor while this process holds the place


def claim() -> None:
    """Hold the default place for this process (until `release` or exit), waiting for other holders."""
    if _held:
        return
    lock = os.open(f"/tmp/tabgate-tests-default-place-{os.getuid()}.lock", os.O_CREAT | os.O_RDWR, 0o600)
    waited = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > waited:
                os.close(lock)
                raise AssertionError(f"another test run held the default place for {LOCK_WAIT_S} s") from None
            time.sleep(0.5)
    _held.append(lock)


def claimed() -> bool:
    return bool(_held)


def release() -> None:
    """Give the place back once this process's hosts there have closed (closing the file drops the lock)."""
    while _held:
        os.close(_held.pop())


def kept_apart(env: Mapping[str, str], folder: Path) -> dict[str, str]:
    """`env` with the host's gateway place in `folder`, unless `env` names one or this process has claimed
    the default place (the test is about the default place, so its host must be there)."""
    if ENV_RUNTIME_DIR in env or claimed():
        return dict(env)
    return {**env, ENV_RUNTIME_DIR: str(folder)}
