"""What a browser tool declares: its parameters model, whether it may run in parallel, its time limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from core.calls.output import FunctionOutput
from core.calls.spec import ToolSpec, parameters_schema
from core.web.fence import RULE

DEFAULT_BROWSER_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class BrowserToolSpec:
    name: str
    description: str
    params: type[BaseModel]
    supports_parallel: bool
    timeout_ms: int = DEFAULT_BROWSER_TIMEOUT_MS
    # Turns the service worker's JSON result into the output; None sends it back as compact JSON text.
    to_output: Callable[[Any], FunctionOutput] | None = None
    # Computed once here, not per call.
    tool_spec: ToolSpec = field(init=False)

    def __post_init__(self) -> None:
        # Every browser tool tells the model that page text is data (contract §7.1), in the same words.
        described = f"{self.description} {RULE}"
        spec = ToolSpec(self.name, described, parameters_schema(self.params), self.supports_parallel)
        object.__setattr__(self, "tool_spec", spec)
