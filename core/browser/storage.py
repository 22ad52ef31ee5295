"""`browser_storage`: get, set, remove and list keys in chrome.storage, in a namespace of its own.

Every key is kept under `TOOL_STORAGE_PREFIX`, so a model can neither read nor overwrite Tabgate's own state
(its config and call history live in the same storage areas). Python names the stored keys; the service
worker makes the one chrome.storage call it is sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.context import PageContext
from core.browser.tool_spec import BrowserToolSpec

Key = Annotated[str, Field(min_length=1, max_length=256)]
# The tools' namespace in chrome.storage, apart from Tabgate's own state.
TOOL_STORAGE_PREFIX = "tool:"


class BrowserStorageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["get", "set", "remove", "keys"] = Field(
        description="get keys, set items, remove keys, or list the keys stored."
    )
    area: Literal["local", "session"] = Field(
        default="local", description="local persists; session lasts until the browser closes."
    )
    keys: list[Key] | None = Field(default=None, description="get/remove: the keys.")
    items: dict[Key, Any] | None = Field(
        default=None, description="set: the key → JSON value pairs to store."
    )

    @model_validator(mode="after")
    def _not_empty(self) -> Self:
        """Beyond the fields each action takes (core/browser/actions.py): a given list or map has entries."""
        for name in ("keys", "items"):
            if getattr(self, name) is not None and not getattr(self, name):
                raise ValueError(f"{name} must not be empty")
        return self


BROWSER_STORAGE = BrowserToolSpec(
    name="browser_storage",
    description=(
        "Keep small JSON values in the browser's extension storage, in a namespace of the tools' own: "
        "action=get (keys), set (items), remove (keys), keys. area=local persists, session lasts until the "
        "browser closes."
    ),
    params=BrowserStorageArgs,
    supports_parallel=False,
)


def _stored(key: str) -> str:
    return TOOL_STORAGE_PREFIX + key


async def _storage(ctx: PageContext, a: BrowserStorageArgs, **call: Any) -> Any:
    return await ctx.cdp.legacy("browser_storage", {"action": a.action, "area": a.area, **call})


async def get(ctx: PageContext, a: BrowserStorageArgs) -> dict[str, Any]:
    keys = a.keys or []
    found = await _storage(ctx, a, keys=[_stored(key) for key in keys])
    return {key: found[_stored(key)] for key in keys if _stored(key) in found}


async def keys(ctx: PageContext, a: BrowserStorageArgs) -> dict[str, Any]:
    every = await _storage(ctx, a)  # chrome.storage's getKeys: every key of the area, Tabgate's own too
    return {
        "keys": [
            key.removeprefix(TOOL_STORAGE_PREFIX) for key in every if key.startswith(TOOL_STORAGE_PREFIX)
        ]
    }


async def set_(ctx: PageContext, a: BrowserStorageArgs) -> dict[str, Any]:
    items = a.items or {}
    await _storage(ctx, a, items={_stored(key): value for key, value in items.items()})
    return {"stored": list(items)}


async def remove(ctx: PageContext, a: BrowserStorageArgs) -> dict[str, Any]:
    keys = a.keys or []
    await _storage(ctx, a, keys=[_stored(key) for key in keys])
    return {"removed": keys}
