"""Parameter schemas: pydantic models for our tools, codex's sanitising for MCP tools (notes b2)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from core.calls.spec import mcp_parameters_schema, parameters_schema

pytestmark = pytest.mark.unit


class Inner(BaseModel):
    title: str


class Outer(BaseModel):
    inner: Inner
    items: list[Inner]


def test_model_schemas_are_self_contained_and_carry_no_generated_titles() -> None:
    assert parameters_schema(Outer) == {
        "type": "object",
        "properties": {
            "inner": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"title": {"type": "string"}},
                    "required": ["title"],
                },
            },
        },
        "required": ["inner", "items"],
    }


def test_a_missing_properties_object_is_inserted() -> None:
    assert mcp_parameters_schema({"type": "object"}) == {"type": "object", "properties": {}}


def test_null_properties_are_replaced_by_an_empty_object() -> None:
    assert mcp_parameters_schema({"type": "object", "properties": None}) == {
        "type": "object",
        "properties": {},
    }


@pytest.mark.parametrize(
    ("schema", "expected_type"),
    [
        ({"required": ["a"]}, "object"),
        ({"additionalProperties": False}, "object"),
        ({"items": {"type": "string"}}, "array"),
        ({"prefixItems": [{"type": "string"}]}, "array"),
        ({"enum": ["a", "b"]}, "string"),
        ({"const": "a"}, "string"),
        ({"format": "date"}, "string"),
        ({"minimum": 1}, "number"),
        ({"maximum": 1}, "number"),
        ({"exclusiveMinimum": 1}, "number"),
        ({"exclusiveMaximum": 1}, "number"),
        ({"multipleOf": 2}, "number"),
        ({"description": "anything"}, "string"),
        ({"type": ["null", "integer"]}, "integer"),
    ],
)
def test_a_missing_type_is_inferred_from_the_keywords_present(
    schema: dict[str, Any], expected_type: str
) -> None:
    sanitized = mcp_parameters_schema({"type": "object", "properties": {"p": schema}})
    assert sanitized["properties"]["p"]["type"] == expected_type


def test_boolean_schemas_become_strings() -> None:
    sanitized = mcp_parameters_schema({"type": "object", "properties": {"anything": True}})
    assert sanitized["properties"]["anything"] == {"type": "string"}


def test_arrays_without_items_get_string_items() -> None:
    sanitized = mcp_parameters_schema({"properties": {"tags": {"type": "array"}}})
    assert sanitized == {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
    }


def test_nested_schemas_in_items_combiners_and_additional_properties_are_sanitised() -> None:
    sanitized = mcp_parameters_schema(
        {
            "type": "object",
            "properties": {
                "list": {"items": {"enum": ["x"]}},
                "either": {"anyOf": [{"minimum": 0}, True]},
                "map": {"type": "object", "additionalProperties": {"items": {}}},
                "open": {"type": "object", "additionalProperties": True},
            },
        }
    )
    properties = sanitized["properties"]
    assert properties["list"] == {"type": "array", "items": {"type": "string", "enum": ["x"]}}
    assert properties["either"]["anyOf"] == [{"minimum": 0, "type": "number"}, {"type": "string"}]
    assert properties["map"]["additionalProperties"] == {"type": "array", "items": {"type": "string"}}
    assert properties["map"]["properties"] == {}
    assert properties["open"]["additionalProperties"] is True


def test_the_hosts_schema_is_left_untouched() -> None:
    original = {"type": "object", "properties": {"a": {}}}
    mcp_parameters_schema(original)
    assert original == {"type": "object", "properties": {"a": {}}}
