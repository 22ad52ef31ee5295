"""A method's params, checked with a pydantic model: the first problem is the -32602 the caller gets."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from ..process.jsonrpc import ErrorCode, McpRequestError, Request


class Params(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ServerParams(Params):
    """Params naming one configured server (logs, restart, sign-in, sign-out, a prompt listing)."""

    server: str


def parse_params[P: Params](model: type[P], request: Request) -> P:
    try:
        return model.model_validate(request.params)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        raise McpRequestError(
            ErrorCode.INVALID_PARAMS, f"invalid params for {request.method}: {where}: {first['msg']}"
        ) from None
