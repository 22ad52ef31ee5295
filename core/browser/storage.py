"""`browser_storage`: get, set, remove and list keys in chrome.storage, in a namespace of its own.

The service worker prefixes every key, so a model can neither read nor overwrite Tabgate's own state (its
config and call history live in the same storage areas).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.tool_spec import BrowserToolSpec

Key = Annotated[str, Field(min_length=1, max_length=256)]


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
