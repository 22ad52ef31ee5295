"""The core's link to the native host: its servers, their MCP tools, requests under time limits,
elicitation."""
