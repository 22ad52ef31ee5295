"""`tabgate-host`: the browser's native host (first argument = the caller's origin), its admin tool, or
(`tabgate-host mcp`) the MCP server that agents start to use Tabgate's tools."""

from __future__ import annotations

import os
import sys

ADMIN_COMMANDS = frozenset({"install", "uninstall", "doctor", "config", "connect", "-h", "--help"})


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ADMIN_COMMANDS:
        from .setup.admin import run_admin

        return run_admin(args)
    if args == ["mcp"]:
        # An agent's MCP client started us (stdio): the MCP server that reaches Tabgate through its socket.
        import logging

        from .gateway.agent_server import run_agent_server

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="tabgate-host mcp: %(message)s")
        return run_agent_server()
    # Host mode: kept free of heavy imports, because the browser waits for the answer to `initialize`.
    from .host import run

    code = run(args)
    import logging

    logging.shutdown()
    sys.stderr.flush()
    # Connection threads may still be closing child processes; the host must not outlive its pipe for them.
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
