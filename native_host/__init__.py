"""Tabgate native messaging host: MCP connections for the extension."""
