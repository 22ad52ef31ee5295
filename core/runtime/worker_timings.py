"""The service worker's fixed waits, each named with why it is that long (issue 26, Deliver 3: every decision
is made once, in Python). The build writes them as `worker_timings.js` (`WorkerTiming.NAME`, buildsys/
js_tables.py); no file in extension/worker/ holds a timing number of its own
(tests/lint/test_worker_decides_nothing.py). Standard library only: the build reads it before the .venv."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WorkerTimings:
    """Milliseconds each, as JavaScript's timers take them."""

    # A status asked for while Python boots after a worker restart waits this long for it: the offscreen
    # document reconnects within milliseconds, and the popup should not show "booting" for that blink.
    status_python_wait_ms: int = 1_500
    # Status changes within this time share one broadcast to the open pages (a burst of host and Python
    # state changes draws once).
    status_batch_ms: int = 20
    # The offscreen document reconnects its lifeline this soon after the service worker goes: connecting
    # wakes a new worker, so Python is back before the next call; the pause lets the stopping one finish.
    offscreen_reconnect_ms: int = 50
    # A call Python has not answered by then fails, so no caller waits for ever; long enough for a call that
    # waits on the person (a question, an approval) to end by its own limit first.
    python_call_limit_ms: int = 10 * 60 * 1000
    # How long a call waits for Python to become ready: a cold boot on a loaded machine takes seconds.
    python_ready_limit_ms: int = 60_000
    # A missing or refused native host is looked for again at most this often (the person may install it
    # at any time; each look starts a process).
    host_retry_ms: int = 2_000
    # A host that exits while it is wanted (the agent gateway is on) is started again after the first delay,
    # doubling up to the second while it keeps exiting within host_stable_ms of starting: a crashing host
    # is not restarted in a tight loop, a host that ran a while is restarted at once.
    host_restart_min_ms: int = 200
    host_restart_max_ms: int = 5_000
    host_stable_ms: int = 10_000
    # History changes within this time share one storage write and one call to Python (a short call's start
    # and end, a burst of calls), off the answers' path. A worker that stops this soon after a call started
    # leaves no entry of it; one that stops later leaves it `running`, and the next marks it interrupted.
    history_write_delay_ms: int = 50
    # The agents' activity log is written to storage at most this often, with every change since: the log is
    # one stored list of up to 500 entries, and writing it after each call cost the worker ~10 ms a call
    # (docs/benchmarks.md). A worker that stops in between loses at most this long of the log; the history
    # keeps every call.
    activity_write_delay_ms: int = 1_000
    # A paused navigation Python has not decided by then is failed (core/consent/nav_guard.py decides):
    # a load is never held for ever, and failing is the safe answer.
    nav_decision_limit_ms: int = 10_000

    def host_restart_delays_ms(self) -> list[int]:
        """The waits before each restart of a host that keeps exiting within `host_stable_ms` of starting:
        from the shortest, doubling, up to the longest, which repeats (the list's last entry)."""
        delays = [self.host_restart_min_ms]
        while delays[-1] < self.host_restart_max_ms:
            delays.append(min(delays[-1] * 2, self.host_restart_max_ms))
        return delays


WORKER_TIMINGS = WorkerTimings()
