"""The dispatcher's own cost: one no-op built-in (`update_plan` with an empty plan) through Service.handle,
beside a bare async function call, measured in the same run. Runs unchanged on CPython and inside Pyodide."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from typing import Any

from core.runtime.facade import Service

BATCH = 200
BATCHES = 30


async def _bare(message: dict[str, Any]) -> dict[str, Any]:
    return message


async def _per_call_us(call: Any, message: dict[str, Any]) -> float:
    samples = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(BATCH):
            await call(message)
        samples.append((time.perf_counter() - t0) / BATCH * 1e6)
    return statistics.median(samples)


async def measure() -> dict[str, float]:
    service = Service(emit=lambda event: None)
    item = {"type": "function_call", "name": "update_plan", "arguments": '{"plan":[]}', "call_id": "bench"}
    message = {"type": "dispatch", "item": item}
    answer = await service.handle(message)
    assert answer["success"] is True, answer
    await _per_call_us(service.handle, message)  # warm-up
    dispatch_us = await _per_call_us(service.handle, message)
    bare_us = await _per_call_us(_bare, message)
    return {"dispatch_us": round(dispatch_us, 2), "bare_call_us": round(bare_us, 3)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(measure())))
