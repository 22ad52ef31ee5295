"""What a browser tool declares: its parameters model, whether it may run in parallel, its time limit."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from core.spec import ToolSpec, parameters_schema

DEFAULT_BROWSER_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class BrowserToolSpec:
    name: str
    description: str
    params: type[BaseModel]
    supports_parallel: bool
    timeout_ms: int = DEFAULT_BROWSER_TIMEOUT_MS
    # Computed once here, not per call.
    tool_spec: ToolSpec = field(init=False)

    def __post_init__(self) -> None:
        spec = ToolSpec(self.name, self.description, parameters_schema(self.params), self.supports_parallel)
        object.__setattr__(self, "tool_spec", spec)
