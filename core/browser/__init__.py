"""The browser tool registry: one pydantic model per tool, with an `action` field naming the operation."""
