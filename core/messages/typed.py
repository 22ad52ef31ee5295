"""The base of every message and event model (runtime_messages.py, event_messages.py): its type, what it is
for, who answers or emits it, and the decorator that makes a class the one model of its type."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Typed(BaseModel):
    """A message or event: `TYPE` its `type`, `DOC` what it is for, `BY` who answers or emits it."""

    model_config = ConfigDict(frozen=True, extra="allow")
    TYPE: ClassVar[str]
    DOC: ClassVar[str]
    BY: ClassVar[str]


def registers[T: type[Typed]](table: dict[str, T], kind: str, doc: str, by: str) -> Callable[[T], T]:
    """A class decorator: the class becomes the one model of `{type: kind}` in `table`."""

    def register(model: T) -> T:
        if kind in table:
            raise ValueError(f"{kind!r} has two models")
        model.TYPE, model.DOC, model.BY = kind, doc, by
        table[kind] = model
        return model

    return register
