"""Tabgate dispatch core: routes model tool calls to built-ins, browser tools and MCP."""
