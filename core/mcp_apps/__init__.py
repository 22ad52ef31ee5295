"""MCP Apps (io.modelcontextprotocol/ui): a tool's View, its postMessage bridge and what the person is
asked."""
