"""Model-visible MCP tool names: `mcp__<server>__<tool>`, at most 64 characters (codex `qualify_tools`)."""

from __future__ import annotations

import hashlib
import re

MCP_TOOL_NAME_PREFIX = "mcp"
MCP_TOOL_NAME_DELIMITER = "__"
MAX_TOOL_NAME_LENGTH = 64

# OpenAI tool names must match ^[a-zA-Z0-9_-]+$.
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def raw_qualified_name(server: str, tool: str) -> str:
    return f"{MCP_TOOL_NAME_PREFIX}{MCP_TOOL_NAME_DELIMITER}{server}{MCP_TOOL_NAME_DELIMITER}{tool}"


def sanitize_tool_name(name: str) -> str:
    return _NOT_ALLOWED.sub("_", name) or "_"


def qualified_mcp_tool_name(server: str, tool: str) -> str:
    raw = raw_qualified_name(server, tool)
    name = sanitize_tool_name(raw)
    if len(name) > MAX_TOOL_NAME_LENGTH:
        # The hash is of the raw name, so names that sanitise alike (foo.bar, foo_bar) still differ.
        digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()
        name = name[: MAX_TOOL_NAME_LENGTH - len(digest)] + digest
    return name
