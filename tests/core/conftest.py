"""Runs `async def` tests with `asyncio.run`: the same files work on CPython and in Pyodide, no plugins."""

from __future__ import annotations

import asyncio
import inspect

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    function = pyfuncitem.obj
    if not inspect.iscoroutinefunction(function):
        return None
    wanted = inspect.signature(function).parameters
    asyncio.run(function(**{name: pyfuncitem.funcargs[name] for name in wanted}))
    return True
