"""The core's link to the native host: its servers, their MCP tools (and Apps' tool metadata), requests under
time limits, elicitation."""
