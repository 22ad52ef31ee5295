"""Tabgate's fixed tools as an agent lists them: the built-in and browser tools, known without the browser.

The browser offers agents exactly these (core/runtime/catalog.py registers the same specs, in this order) plus
the
MCP-derived tools when the person turned `gatewayMcp` on; `tabgate-host mcp` lists these while the browser is
closed or the gateway is off, so that a client that lists once (codex) has them when the browser comes.
tests/host/test_host_standing_unit.py compares the two lists with the real core.
"""

from __future__ import annotations

import mcp_types as types

from core.browser.tool_table import BROWSER_TOOLS
from core.calls.spec import ToolSpec
from core.tools.handlers.plan import UPDATE_PLAN

FIXED_SPECS: tuple[ToolSpec, ...] = (UPDATE_PLAN, *(spec.tool_spec for spec in BROWSER_TOOLS))


def fixed_tools() -> list[types.Tool]:
    return [
        types.Tool(name=spec.name, description=spec.description, input_schema=spec.parameters)
        for spec in FIXED_SPECS
    ]
