"""Tool specs as offered to a model, and the JSON Schemas of their parameters."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

type JsonSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: JsonSchema
    supports_parallel: bool


def parameters_schema(model: type[BaseModel]) -> JsonSchema:
    """The model's JSON Schema, self-contained (no `$ref`) and without pydantic's generated titles."""
    schema = model.model_json_schema()
    tidy: JsonSchema = _tidy(schema, schema.pop("$defs", {}))
    return tidy


def _tidy(schema: Any, defs: dict[str, Any]) -> Any:
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _tidy(defs[ref.rsplit("/", 1)[-1]], defs)
    tidy: JsonSchema = {}
    for key, value in schema.items():
        if key == "title" or (key == "default" and value is None):
            continue
        if key == "properties":
            tidy[key] = {name: _tidy(sub, defs) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            tidy[key] = _tidy(value, defs)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            tidy[key] = [_tidy(sub, defs) for sub in value]
        else:
            tidy[key] = value
    return tidy


_TYPE_NAMES = ("object", "array", "string", "number", "integer", "boolean")
_OBJECT_HINTS = ("properties", "required", "additionalProperties")
_ARRAY_HINTS = ("items", "prefixItems")
_STRING_HINTS = ("enum", "const", "format")
_NUMBER_HINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def mcp_parameters_schema(input_schema: JsonSchema) -> JsonSchema:
    """codex `mcp_tool_to_openai_tool`: ensure `properties`, then sanitise; the input is left untouched."""
    schema = copy.deepcopy(input_schema)
    if schema.get("properties") is None:
        schema["properties"] = {}
    _sanitize(schema)
    return schema


def _sanitize(value: Any) -> Any:
    """codex `sanitize_json_schema`, in place; returns the replacement for boolean schemas."""
    if isinstance(value, bool):
        return {"type": "string"}
    if isinstance(value, list):
        value[:] = [_sanitize(entry) for entry in value]
        return value
    if not isinstance(value, dict):
        return value
    properties = value.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            properties[name] = _sanitize(sub)
    if "items" in value:
        value["items"] = _sanitize(value["items"])
    for combiner in ("oneOf", "anyOf", "allOf", "prefixItems"):
        if combiner in value:
            value[combiner] = _sanitize(value[combiner])

    declared = value.get("type")
    kind = declared if isinstance(declared, str) else None
    if kind is None and isinstance(declared, list):
        kind = next((t for t in declared if isinstance(t, str) and t in _TYPE_NAMES), None)
    if kind is None:
        kind = _infer_type(value)
    value["type"] = kind

    if kind == "object":
        value.setdefault("properties", {})
        extra = value.get("additionalProperties")
        if extra is not None and not isinstance(extra, bool):
            value["additionalProperties"] = _sanitize(extra)
    if kind == "array" and "items" not in value:
        value["items"] = {"type": "string"}
    return value


def _infer_type(schema: JsonSchema) -> str:
    if any(key in schema for key in _OBJECT_HINTS):
        return "object"
    if any(key in schema for key in _ARRAY_HINTS):
        return "array"
    if any(key in schema for key in _STRING_HINTS):
        return "string"
    if any(key in schema for key in _NUMBER_HINTS):
        return "number"
    return "string"
