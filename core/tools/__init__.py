"""The tool router, registry, parallel gates, guards and handlers (codex tools/): a call routed to its
handler."""
