"""The extension's fixed public key: its id is the same on every machine."""

from __future__ import annotations

import base64
import hashlib

EXTENSION_KEY = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvI69hNUOEcn941XWEil5Y523y09TRNrtNQSedil4ZyLDKydEteS881Vik"
    "GkOYXaXWAa/jnZaUTaQFUZDxV4Qu/OhBJ4768FWeGqEh+Ty5wd03EzaBAtXYAz9sLf0JDuxxR6YyQGeAXVL06niRUOkoPTfW0Rmt8"
    "rtZuYIcwH6b+Atzg3tNnJ/XTubCisHmvB24JH1ypH7VOgzXwrrOFpcRaXLfLYlukHnDhsXyFRGgwsFhYBWRBbKLHzXQNeLxFBEUgB"
    "pk2zHd9WdPVLc1vyKl5dFfkxCFzXc56/n4nfNAmbAZlsvq5tFVjh95Y5lMTFirO+tbHPHg1nfX+6PKd3pIQIDAQAB"
)


def extension_id(key_b64: str = EXTENSION_KEY) -> str:
    """Chrome's id for an extension with this public key: sha256 of the DER key, first 32 hex, a-p."""
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)
