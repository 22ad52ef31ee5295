"""A server's roots (the folders it may work in): the config's `roots`, answered to `roots/list` (an
initialize-era server's request, or a 2026-07-28 `input_required` question) as `file://` URIs.

Only a server with `roots` configured is told the host has them (`list_roots_callback`, from which the SDK
declares the capability with `listChanged`); a server without is not, and a roots request from it is
answered by the SDK's refusal (-32600 "List roots not supported"; a 2026-07-28 SDK server refuses to ask,
-32021). A change of a running server's roots
(`servers/restart` after the config changed only there) reaches it as `notifications/roots/list_changed`
where its era has that notification; a 2026-07-28 server asks again when it needs them."""

from __future__ import annotations

import logging
from pathlib import Path

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext, ListRootsFnT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)


def as_roots(folders: tuple[str, ...]) -> types.ListRootsResult:
    """`folders` (absolute paths) as MCP roots: percent-encoded `file://` URIs, named by the folder's name."""
    roots = []
    for folder in folders:
        path = Path(folder)
        roots.append(types.Root(uri=path.as_uri(), name=path.name or str(path)))
    return types.ListRootsResult(roots=roots)


class ServerRoots:
    """One server's roots as its config says now; the callback reads them at each request."""

    def __init__(self, server: str, folders: tuple[str, ...]) -> None:
        self.server = server
        self.folders = folders

    def callback(self) -> ListRootsFnT | None:
        """The SDK's `list_roots_callback`, None (no capability declared) when the config has no roots."""
        if not self.folders:
            return None

        async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
            log.info("server %s asked for its roots: %d", self.server, len(self.folders))
            return as_roots(self.folders)

        return list_roots

    async def change(self, client: Client | None, folders: tuple[str, ...]) -> None:
        """New roots for a server that has roots (declared at its start); a running initialize-era server is
        told they changed."""
        assert self.folders and folders, "declaring or withdrawing roots takes a restart"
        self.folders = folders
        if client is not None and client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # A 2026-07-28 session has no such notification: its server asks for roots when it needs them.
            await client.session.send_notification(types.RootsListChangedNotification())
