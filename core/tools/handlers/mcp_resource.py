"""MCP resource tools (codex `handlers/mcp_resource.rs`): list resources / templates, read one resource."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from core.calls.arguments import InvalidJson, parse_json_arguments, validate_arguments
from core.calls.capabilities import McpCapability, McpRequestError
from core.calls.deadline import DeadlineExceeded
from core.calls.errors import RespondToModel
from core.calls.items import CallToolResult
from core.calls.output import FunctionOutput, Pages
from core.calls.payload import FunctionPayload, PayloadKind, ToolCall
from core.calls.spec import ToolSpec, parameters_schema
from core.calls.validation import format_validation_error
from core.host_link.host_requests import ask_host
from core.host_link.servers import ServerBoard
from core.messages.emit import CANCELLED, Emit, McpCallSpan
from core.messages.event_messages import McpInvocation
from core.messages.host_methods import (
    RESOURCES_LIST,
    RESOURCES_READ,
    TEMPLATES_LIST,
    AnyServerParams,
    HostMethod,
    HostParams,
    ReadParams,
)

LIST_RESOURCES = "list_mcp_resources"
LIST_RESOURCE_TEMPLATES = "list_mcp_resource_templates"
READ_RESOURCE = "read_mcp_resource"

# The event invocation's server for a listing of every server: codex's literal.
ALL_SERVERS_INVOCATION_SERVER = "codex"

type Json = dict[str, Any]
_NO_EXTRA_PROPERTIES = ConfigDict(json_schema_extra={"additionalProperties": False})
_String = Annotated[str | None, WithJsonSchema({"type": "string"})]


class ListResourcesArgs(BaseModel):
    model_config = _NO_EXTRA_PROPERTIES

    server: _String = Field(
        default=None,
        description="Optional MCP server name. When omitted, lists resources from every configured server.",
    )
    cursor: _String = Field(
        default=None,
        description="Opaque cursor returned by a previous list_mcp_resources call for the same server.",
    )


class ListResourceTemplatesArgs(BaseModel):
    model_config = _NO_EXTRA_PROPERTIES

    server: _String = Field(
        default=None,
        description=(
            "Optional MCP server name. When omitted, lists resource templates from all configured servers."
        ),
    )
    cursor: _String = Field(
        default=None,
        description=(
            "Opaque cursor returned by a previous list_mcp_resource_templates call for the same server."
        ),
    )


class ReadResourceArgs(BaseModel):
    # Absent and blank both answer "<field> must be provided", so the fields are optional to pydantic
    # and required only in the schema the model sees.
    model_config = ConfigDict(
        json_schema_extra={"additionalProperties": False, "required": ["server", "uri"]}
    )

    server: _String = Field(
        default=None,
        description=(
            "MCP server name exactly as configured. Must match the 'server' field returned by "
            "list_mcp_resources."
        ),
    )
    uri: _String = Field(
        default=None,
        description="Resource URI to read. Must be one of the URIs returned by list_mcp_resources.",
    )


RESOURCE_TOOL_SPECS = (
    ToolSpec(
        name=LIST_RESOURCES,
        description=(
            "Lists resources provided by MCP servers. Resources allow servers to share data that provides "
            "context to language models, such as files, database schemas, or application-specific "
            "information. Prefer resources over web search when possible."
        ),
        parameters=parameters_schema(ListResourcesArgs),
        supports_parallel=True,
    ),
    ToolSpec(
        name=LIST_RESOURCE_TEMPLATES,
        description=(
            "Lists resource templates provided by MCP servers. Parameterized resource templates allow "
            "servers to share data that takes parameters and provides context to language models, such as "
            "files, database schemas, or application-specific information. Prefer resource templates over "
            "web search when possible."
        ),
        parameters=parameters_schema(ListResourceTemplatesArgs),
        supports_parallel=True,
    ),
    ToolSpec(
        name=READ_RESOURCE,
        description=("Read a specific resource from an MCP server given the server name and resource URI."),
        parameters=parameters_schema(ReadResourceArgs),
        supports_parallel=True,
    ),
)


def _optional(value: str | None) -> str | None:
    """codex `normalize_optional_string`: trimmed, and blank means absent."""
    if value is None:
        return None
    return value.strip() or None


def _required(field: str, value: str | None) -> str:
    normalized = _optional(value)
    if normalized is None:
        raise RespondToModel(f"{field} must be provided")
    return normalized


def _invalid_answer(method: str, detail: str) -> RespondToModel:
    return RespondToModel(f"{method} failed: invalid answer from the host: {detail}")


class _FailedServer(BaseModel):
    """A server the host could not list in an all-servers listing (contract §4 `failedServers`)."""

    model_config = ConfigDict(extra="ignore")

    server: str
    message: str


class _ResourcesPage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    resources: list[Json]
    nextCursor: str | None = None
    failedServers: list[_FailedServer] = []

    @property
    def items(self) -> list[Json]:
        return self.resources


class _TemplatesPage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    resourceTemplates: list[Json]
    nextCursor: str | None = None
    failedServers: list[_FailedServer] = []

    @property
    def items(self) -> list[Json]:
        return self.resourceTemplates


class _ReadResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    contents: list[Json]


@dataclass(frozen=True, slots=True)
class _Listing:
    """What differs between listing resources and listing resource templates."""

    tool: str
    method: HostMethod[AnyServerParams]
    key: str
    page_model: type[_ResourcesPage | _TemplatesPage]

    def page(self, raw: Any) -> _ResourcesPage | _TemplatesPage:
        try:
            return self.page_model.model_validate(raw)
        except ValidationError as error:
            raise _invalid_answer(self.method.name, format_validation_error(error)) from None


_RESOURCES = _Listing(LIST_RESOURCES, RESOURCES_LIST, "resources", _ResourcesPage)
_TEMPLATES = _Listing(LIST_RESOURCE_TEMPLATES, TEMPLATES_LIST, "resourceTemplates", _TemplatesPage)


class McpResourceHandler:
    accepts = frozenset({PayloadKind.FUNCTION})

    def __init__(self, mcp: McpCapability, emit: Emit, servers: ServerBoard) -> None:
        self._mcp = mcp
        self._emit = emit
        self._servers = servers

    async def handle(self, call: ToolCall) -> FunctionOutput:
        if not isinstance(call.payload, FunctionPayload):
            raise RespondToModel("mcp_resource handler received unsupported payload")
        try:
            arguments = parse_json_arguments(call.payload.arguments)
        except InvalidJson as error:
            raise RespondToModel(f"failed to parse function arguments: {error}") from None
        if call.tool_name == LIST_RESOURCES:
            return await self._list(call.call_id, _RESOURCES, ListResourcesArgs, arguments)
        if call.tool_name == LIST_RESOURCE_TEMPLATES:
            return await self._list(call.call_id, _TEMPLATES, ListResourceTemplatesArgs, arguments)
        if call.tool_name == READ_RESOURCE:
            return await self._read(call.call_id, arguments)
        raise RespondToModel(f"unsupported MCP resource tool: {call.tool_name}")

    async def _list(
        self,
        call_id: str,
        listing: _Listing,
        model: type[ListResourcesArgs | ListResourceTemplatesArgs],
        arguments: Any,
    ) -> FunctionOutput:
        args = validate_arguments(model, arguments) if arguments is not None else model()
        server = _optional(args.server)
        cursor = _optional(args.cursor)
        invocation = McpInvocation(
            server=server or ALL_SERVERS_INVOCATION_SERVER, tool=listing.tool, arguments=arguments
        )

        async def payload() -> Json:
            if server is None:
                if cursor is not None:
                    raise RespondToModel("cursor can only be used when a server is specified")
                return await self._list_all(listing)
            params = AnyServerParams(server=server, cursor=cursor)
            limit_ms = self._servers.request_limit_ms(server)
            page = listing.page(await self._request(listing.method, params, limit_ms))
            answer: Json = {
                "server": server,
                listing.key: [{"server": server, **item} for item in page.items],
            }
            if page.nextCursor is not None:
                answer["nextCursor"] = page.nextCursor
            return answer

        return await self._run(call_id, invocation, payload, paged=True)

    async def _list_all(self, listing: _Listing) -> Json:
        limit_ms = self._servers.all_servers_limit_ms()
        page = listing.page(await self._request(listing.method, AnyServerParams(), limit_ms))
        entries: list[Json] = []
        for item in page.items:
            server = item.get("server")
            if not isinstance(server, str):
                raise _invalid_answer(listing.method.name, "an entry has no server")
            entries.append({"server": server, **item})
        # Sorted by server name, each server's own order kept (sort is stable). Servers the host could
        # not list are named, so the model knows the list is partial (contract §6).
        entries.sort(key=lambda entry: entry["server"])
        answer: Json = {listing.key: entries}
        if page.failedServers:
            answer["failedServers"] = [failed.model_dump() for failed in page.failedServers]
        return answer

    async def _read(self, call_id: str, arguments: Any) -> FunctionOutput:
        if arguments is None:
            raise RespondToModel("failed to parse function arguments: expected value")
        args = validate_arguments(ReadResourceArgs, arguments)
        server = _required("server", args.server)
        uri = _required("uri", args.uri)
        invocation = McpInvocation(server=server, tool=READ_RESOURCE, arguments=arguments)

        async def payload() -> Json:
            params = ReadParams(server=server, uri=uri)
            raw = await self._request(RESOURCES_READ, params, self._servers.request_limit_ms(server))
            try:
                result = _ReadResult.model_validate(raw)
            except ValidationError as error:
                raise _invalid_answer(RESOURCES_READ.name, format_validation_error(error)) from None
            # ReadResourceResult flattened after server and uri, as codex's ReadResourcePayload.
            return {"server": server, "uri": uri, **result.model_dump()}

        return await self._run(call_id, invocation, payload)

    async def _request[P: HostParams](self, method: HostMethod[P], params: P, limit_ms: int) -> Any:
        try:
            return await ask_host(self._mcp, method, params, limit_ms=limit_ms)
        except (McpRequestError, DeadlineExceeded) as error:
            raise RespondToModel(f"{method.name} failed: {error}") from None

    async def _run(
        self,
        call_id: str,
        invocation: McpInvocation,
        payload: Callable[[], Awaitable[Json]],
        *,
        paged: bool = False,
    ) -> FunctionOutput:
        """Begin event, the host calls, end event with the payload's compact JSON text or the error."""
        span = McpCallSpan(self._emit, call_id, invocation)
        try:
            answer = await payload()
            content = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        except RespondToModel as error:
            span.end(error.message)
            raise
        except asyncio.CancelledError:
            span.end(CANCELLED)
            raise
        span.end(CallToolResult(content=[{"type": "text", "text": content}], isError=False))
        cursor = answer.get("nextCursor") if paged and isinstance(answer, dict) else None
        pages = Pages(cursor if isinstance(cursor, str) and cursor else None) if paged else None
        return FunctionOutput(content, pages=pages)
