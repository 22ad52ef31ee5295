"""A method's params, checked with its one model (core/messages/host_methods.py, which the core builds them
with): the first problem is the -32602 the caller gets."""

from __future__ import annotations

from pydantic import ValidationError

from core.messages.host_methods import HOST_METHODS, HostParams

from ..process.jsonrpc import ErrorCode, McpRequestError, Request


def parse_params[P: HostParams](model: type[P], request: Request) -> P:
    """`request`'s params as `model`, which must be its method's one model (a handler reading another
    method's params is a programming error, raised as such)."""
    method = HOST_METHODS.get(request.method)
    if method is None or method.params is not model:
        raise LookupError(
            f"{request.method!r} is not answered with {model.__name__} (core/messages/host_methods.py)"
        )
    try:
        return model.model_validate(request.params)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        raise McpRequestError(
            ErrorCode.INVALID_PARAMS, f"invalid params for {request.method}: {where}: {first['msg']}"
        ) from None
