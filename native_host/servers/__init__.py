"""The MCP servers in the config: one supervised connection each, its transports, sign-in (OAuth), failure
classes, handshake, log messages and the status board."""
