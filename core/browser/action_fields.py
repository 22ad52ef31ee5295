"""The argument fields each browser action takes, and the tool's arguments model derived from them.

Each action in core/browser/actions.py names its fields once (`takes`); a tool's published schema marks
every field with the actions that take it (`x-actions`, omitted for a field every action takes), and its
arguments are refused when they give a field the chosen action does not take, leave out one it requires, or
give other than exactly one of a group it needs one of. Rules that tie fields to each other beyond that
(`give ref or selector, not both`, a regex that compiles) stay in the tool's own model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, model_validator

# Every tool's `action` field names the action; it is no action's own field.
ACTION = "action"


@dataclass(frozen=True, slots=True)
class Fields:
    """An action's arguments: `required` must be given; `optional` may be; of each group in `one_of`
    exactly one must be given. A field set to null counts as not given (some clients send every field)."""

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    one_of: tuple[tuple[str, ...], ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        grouped = tuple(name for group in self.one_of for name in group)
        return tuple(dict.fromkeys((*self.required, *grouped, *self.optional)))

    def problem(self, action: str, given: set[str]) -> str | None:
        """What is wrong with giving `given` to `action`, or None."""
        stray = sorted(given - set(self.names))
        if stray:
            takes = ", ".join(self.names) or "no other field"
            return f"{stray[0]} is not used when action is '{action}' ({action} takes: {takes})"
        for name in self.required:
            if name not in given:
                return f"{name} is required when action is '{action}'"
        for group in self.one_of:
            chosen = [name for name in group if name in given]
            if not chosen:
                return f"{' or '.join(group)} is required when action is '{action}'"
            if len(chosen) > 1:
                return f"{action} needs exactly one of {', '.join(group)} (given: {', '.join(chosen)})"
        return None


def takes(*required: str, optional: tuple[str, ...] = (), one_of: tuple[tuple[str, ...], ...] = ()) -> Fields:
    return Fields(required, optional, one_of)


def given(args: BaseModel) -> set[str]:
    """The fields the caller gave a value (not null), `action` aside."""
    return {name for name in args.model_fields_set if name != ACTION and getattr(args, name) is not None}


def users(fields: Mapping[str, Fields], name: str) -> list[str] | None:
    """The actions that take field `name`, in declaration order; None when every action does."""
    using = [action for action, declared in fields.items() if name in declared.names]
    return None if len(using) == len(fields) else using


def declared_params[M: BaseModel](base: type[M], fields: Mapping[str, Fields]) -> type[M]:
    """`base` checked against the actions' fields, its schema marking which actions take each field."""

    def mark(schema: dict[str, Any]) -> None:
        for name, prop in schema["properties"].items():
            using = users(fields, name) if name != ACTION else None
            if using is not None:
                prop["x-actions"] = using

    class Declared(base):  # type: ignore[valid-type,misc]
        model_config = ConfigDict(json_schema_extra=mark)

        @model_validator(mode="after")
        def _declared_fields(self) -> Self:
            action = getattr(self, ACTION)
            problem = fields[action].problem(action, given(self))
            if problem is not None:
                raise ValueError(problem)
            return self

    Declared.__name__ = Declared.__qualname__ = base.__name__
    return Declared
