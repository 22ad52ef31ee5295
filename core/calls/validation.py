"""One readable sentence for a pydantic `ValidationError`, naming every bad field."""

from __future__ import annotations

from pydantic import ValidationError


def format_validation_error(error: ValidationError) -> str:
    parts: list[str] = []
    for detail in error.errors(include_url=False):
        if detail["type"] == "json_invalid":
            # jiter's own text ("EOF while parsing a value at line 1 column 0") is what serde_json says too.
            message = str(detail.get("ctx", {}).get("error", detail["msg"]))
        else:
            message = detail["msg"].removeprefix("Value error, ")
        location = ".".join(str(part) for part in detail["loc"])
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)
