"""The requests that act: a server's tool, a resource read, a prompt fetched; and the host's own check of the
files a page upload may send (answered with private copies of them)."""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp import Client

from core.messages.host_methods import CallParams, PromptParams, ReadParams, UploadParams

from ..config.redact import KNOWN_SECRETS
from ..process.jsonrpc import ErrorCode, JsonObject, McpRequestError, Request
from ..process.outbox import Outbox
from ..servers.input_required import call_tool
from ..servers.manager import ConnectionManager
from ..servers.replies import to_json
from ..servers.tasks import CreatedTask
from .params import parse_params
from .server_use import use
from .task_keeper import TaskKeeper
from .upload_copies import UploadCopies
from .uploads import UploadRefused


class Calls:
    def __init__(
        self, manager: ConnectionManager, outbox: Outbox, uploads: UploadCopies, tasks: TaskKeeper
    ) -> None:
        self.manager = manager
        self._outbox = outbox
        self._uploads = uploads
        self._tasks = tasks

    async def tools_call(self, request: Request) -> JsonObject:
        params = parse_params(CallParams, request)
        connection = self.manager.get(params.server)
        if not connection.config.allows_tool(params.tool):
            raise McpRequestError(
                ErrorCode.TOOL_DISABLED,
                f"tool '{params.tool}' of MCP server '{params.server}' is disabled by the config "
                "(enabled_tools / disabled_tools)",
                {"server": params.server},
            )
        timeout = params.timeout_ms / 1000 if params.timeout_ms is not None else None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            note: JsonObject = {"requestId": request.id, "progress": progress}
            if total is not None:
                note["total"] = total
            if message is not None:
                note["message"] = KNOWN_SECRETS(message)
            self._outbox.notify("notifications/progress", note)

        async def call(client: Client) -> types.CallToolResult | CreatedTask:
            return await call_tool(client, params.tool, params.arguments, report)

        result = await use(connection, call, timeout)
        if isinstance(result, CreatedTask):  # the server runs it as a task: followed beyond the call's limit
            result = await self._tasks.follow(request.id, connection, params.tool, result, report)
        return to_json(result)

    async def resources_read(self, request: Request) -> JsonObject:
        params = parse_params(ReadParams, request)
        connection = self.manager.get(params.server)
        result = await use(connection, lambda client: client.read_resource(params.uri))
        return {"contents": to_json(result).get("contents", [])}

    async def prompts_get(self, request: Request) -> JsonObject:
        params = parse_params(PromptParams, request)
        connection = self.manager.get(params.server)
        result = await use(connection, lambda client: client.get_prompt(params.name, params.arguments))
        return to_json(result)

    async def files_check_upload(self, request: Request) -> JsonObject:
        params = parse_params(UploadParams, request)
        try:
            paths = await anyio.to_thread.run_sync(self._uploads.copy, params.paths, params.folders)
        except UploadRefused as exc:
            raise McpRequestError(ErrorCode.INVALID_PARAMS, str(exc)) from None
        return {"paths": paths}
