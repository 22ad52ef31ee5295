"""Reading a function call's `arguments` JSON text (codex `parse_arguments` / `parse_args`)."""

from __future__ import annotations

from typing import Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from core.calls.errors import RespondToModel
from core.calls.validation import format_validation_error


class InvalidJson(Exception):
    pass


def parse_json_arguments(raw: str) -> Any | None:
    """The arguments as a JSON value; empty or whitespace text means no arguments (`None`)."""
    if not raw.strip():
        return None
    try:
        return pydantic_core.from_json(raw)
    except ValueError as error:
        # jiter words its errors as serde_json does ("expected value at line 1 column 1").
        raise InvalidJson(str(error)) from None


def parse_arguments_model[M: BaseModel](model: type[M], raw: str) -> M:
    """JSON text straight into `model` (one pass in pydantic-core)."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise _unparsable(error) from None


def validate_arguments[M: BaseModel](model: type[M], value: Any) -> M:
    """An already parsed JSON value into `model`."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise _unparsable(error) from None


def _unparsable(error: ValidationError) -> RespondToModel:
    return RespondToModel(f"failed to parse function arguments: {format_validation_error(error)}")
