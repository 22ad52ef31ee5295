"""The pages' fixed waits (popup, options page, the App frame's host), each named with why it is that long,
so that a timing is decided once, in Python, as the worker's are (core/runtime/worker_timings.py). The build
writes them as `ui_timings.js` (`UiTiming.NAME`); no file in extension/ui/ holds a timing number of its own
(tests/lint/test_worker_decides_nothing.py). Standard library only: the build reads it before the .venv."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UiTimings:
    """Milliseconds each, as JavaScript's timers take them."""

    # A page's events port that closed (the service worker restarted) is opened again this soon: the new
    # worker is up within milliseconds, and the page must not miss the next status.
    events_reconnect_ms: int = 500
    # Opening the events port threw (the extension is reloading): the next try waits longer.
    events_retry_ms: int = 1_000
    # While Python boots the popup asks for the status again this often (boot sends no event per phase).
    boot_status_poll_ms: int = 500
    # The agents view asks again this often while it is open: a running call sends no event when it starts.
    agents_poll_ms: int = 1_000
    # Status changes within this time share one reload of the options page's tool list (a burst of server
    # changes lists the tools once).
    tool_list_reload_ms: int = 200
    # How long "Saved" and other confirmations stay on the options page before they clear.
    confirmation_ms: int = 2_000
    # How long *Close App* waits for the View's answer to ui/resource-teardown before removing it anyway.
    app_teardown_wait_ms: int = 2_000
    # A downloaded result's object URL is kept this long: the browser has started the download by then.
    download_url_life_ms: int = 10_000


UI_TIMINGS = UiTimings()
