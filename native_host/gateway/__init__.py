"""The agent gateway (contract §8): the user-only socket, its peers, the line wire, and `tabgate-host mcp`."""
