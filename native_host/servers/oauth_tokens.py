"""The tokens a sign-in got, kept by the host: `<data dir>/oauth/<server>.json` (0600 in a 0700 folder),
written whole or not at all, bound to the server's URL (a server whose URL changed signs in again)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import anyio
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import BaseModel, ValidationError

from ..config.files import PRIVATE_FILE, write_atomically

log = logging.getLogger(__name__)

LOOPBACK: Final = frozenset({"127.0.0.1", "localhost", "::1"})


def is_private_channel(url: str) -> bool:
    """https, or http on this machine (a local test server): where a token or a sign-in page may go."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK)


class Grant(BaseModel):
    """What `<server>.json` holds. `expires_at` is absolute: the SDK keeps only `expires_in`.
    `authorization_server` is that server's metadata as the sign-in found it: a later host (or a running
    connection, which never ran discovery) refreshes at its token endpoint; without it the SDK would send the
    refresh token to the MCP server's own origin (`/token`). `revocation_endpoint` comes from it (RFC
    7009)."""

    url: str
    client: OAuthClientInformationFull | None = None
    tokens: OAuthToken | None = None
    expires_at: float | None = None
    authorization_server: OAuthMetadata | None = None
    revocation_endpoint: str | None = None


class TokenFile:
    """The SDK's TokenStorage over one server's file; a file for another URL, or unreadable, is no file.

    With `client` (a client registered by hand, from the config) that client is the registration: no dynamic
    registration is asked for, and it is never written to the file (its secret stays in the environment)."""

    def __init__(
        self, folder: Path, server: str, url: str, client: OAuthClientInformationFull | None = None
    ) -> None:
        self.path = folder / f"{server}.json"
        self._url = url
        self._client = client

    def read(self) -> Grant:
        grant = self._read()
        return grant if self._client is None else grant.model_copy(update={"client": self._client})

    def _read(self) -> Grant:
        try:
            grant = Grant.model_validate_json(self.path.read_bytes())
        except FileNotFoundError:
            return Grant(url=self._url)
        except (OSError, ValidationError) as exc:
            log.warning("ignoring unreadable OAuth file %s: %s", self.path, type(exc).__name__)
            return Grant(url=self._url)
        return grant if grant.url == self._url else Grant(url=self._url)

    def signed_in(self) -> bool:
        return self.read().tokens is not None

    def forget(self) -> Grant | None:
        """Drop the tokens (the registration stays for the next sign-in) and answer what they were, to be
        revoked at the server; None when there were none."""
        grant = self.read()
        if grant.tokens is None:
            return None
        write_atomically(
            self.path,
            self._dump(grant.model_copy(update={"tokens": None, "expires_at": None})),
            mode=PRIVATE_FILE,
        )
        return grant

    def _dump(self, grant: Grant) -> bytes:
        if self._client is not None:
            grant = grant.model_copy(update={"client": None})
        return grant.model_dump_json(exclude_none=True).encode()

    async def keep_authorization_server(self, metadata: OAuthMetadata) -> None:
        """The authorization server the sign-in used: where tokens are refreshed and revoked from now on."""
        endpoint = metadata.revocation_endpoint
        revocation = str(endpoint) if endpoint is not None and is_private_channel(str(endpoint)) else None
        update = {"authorization_server": metadata, "revocation_endpoint": revocation}
        await self._write(self.read().model_copy(update=update))

    async def _write(self, grant: Grant) -> None:
        data = self._dump(grant)
        await anyio.to_thread.run_sync(lambda: write_atomically(self.path, data, mode=PRIVATE_FILE))

    async def get_tokens(self) -> OAuthToken | None:
        return self.read().tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        await self._write(self.read().model_copy(update={"tokens": tokens, "expires_at": expires_at}))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.read().client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        # A new registration (the SDK registers only when it holds none: the first, or after the protected
        # resource named another authorization server, SEP-2352) starts a new grant: the tokens and the
        # revocation endpoint of the one before belong to another client, maybe at another server.
        if self._client is None:
            await self._write(Grant(url=self._url, client=client_info))
