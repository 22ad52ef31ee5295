"""The bundled default MCP server: notes in SQLite. Run as `python -m native_host.notes_server [--db FILE]`.

Built on the low-level `mcp.server.Server` because `MCPServer` cannot paginate `resources/list`."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config.identity import HOST_VERSION
from .config.paths import data_dir
from .notes_store import Note, NoteStore

PAGE_SIZE: Final = 50
URI_PREFIX: Final = "notes://note/"
URI_PATTERN: Final = re.compile(r"notes://note/([1-9][0-9]{0,17})")

type Context = ServerRequestContext[Any, Any]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddNote(_Args):
    title: str = Field(min_length=1, max_length=200, description="A short title")
    body: str = Field(max_length=100_000, description="The note's text")


class SearchNotes(_Args):
    query: str = Field(description="Text to look for in titles and bodies (case-insensitive)")
    limit: int = Field(default=20, ge=1, le=100, description="At most this many notes")


class NoteId(_Args):
    id: int = Field(ge=1, description="The note's id")


TOOLS: Final[dict[str, tuple[type[_Args], str]]] = {
    "add_note": (AddNote, "Save a note; returns it with its id."),
    "search_notes": (SearchNotes, "Find notes whose title or body contains the query, newest first."),
    "read_note": (NoteId, "Read one note by id."),
    "delete_note": (NoteId, "Delete one note by id."),
}


def _result(data: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
    )


def _failure(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _resource(note: Note) -> types.Resource:
    return types.Resource(uri=f"{URI_PREFIX}{note.id}", name=note.title, mime_type="text/markdown")


def build_server(store: NoteStore) -> Server[Any]:
    def run_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        model, _ = TOOLS[name]
        try:
            args = model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            return _failure(f"invalid arguments for {name}: {problems}")
        if isinstance(args, AddNote):
            return _result(store.add(args.title, args.body).to_json())
        if isinstance(args, SearchNotes):
            return _result({"notes": [note.to_json() for note in store.search(args.query, args.limit)]})
        assert isinstance(args, NoteId)
        if name == "read_note":
            note = store.get(args.id)
            return _result(note.to_json()) if note else _failure(f"no note with id {args.id}")
        return _result({"deleted": store.delete(args.id), "id": args.id})

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=text, input_schema=model.model_json_schema())
                for name, (model, text) in TOOLS.items()
            ]
        )

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            return _failure(f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}")
        return await anyio.to_thread.run_sync(run_tool, params.name, dict(params.arguments or {}))

    async def list_resources(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params else None
        if cursor is not None and not cursor.isdigit():
            raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor!r}")
        notes = store.page(int(cursor or 0), PAGE_SIZE + 1)
        more = len(notes) > PAGE_SIZE
        notes = notes[:PAGE_SIZE]
        next_cursor = str(notes[-1].id) if more else None
        return types.ListResourcesResult(resources=[_resource(n) for n in notes], next_cursor=next_cursor)

    async def list_templates(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=URI_PREFIX + "{id}",
            name="note",
            description="A note by id",
            mime_type="text/markdown",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        match = URI_PATTERN.fullmatch(str(params.uri))
        note = store.get(int(match.group(1))) if match else None
        if note is None:
            raise MCPError(
                types.INVALID_PARAMS, f"Resource not found: {params.uri}", {"uri": str(params.uri)}
            )
        text = f"# {note.title}\n\n{note.body}\n"
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=str(params.uri), mime_type="text/markdown", text=text)]
        )

    async def list_prompts(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        argument = types.PromptArgument(
            name="query", description="Only notes containing this text", required=False
        )
        prompt = types.Prompt(
            name="summarize_notes", description="Summarise your notes", arguments=[argument]
        )
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "summarize_notes":
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r}")
        notes = store.search((params.arguments or {}).get("query", ""), 100)
        listing = "\n\n".join(f"## {n.title}\n{n.body}" for n in notes) or "(no notes)"
        message = types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=f"Summarise these notes:\n\n{listing}")
        )
        return types.GetPromptResult(description="Summarise your notes", messages=[message])

    return Server(
        "tabgate-notes",
        version=HOST_VERSION,
        instructions="Notes kept on this computer.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def default_db() -> Path:
    return data_dir() / "notes.sqlite3"


async def serve(db: Path) -> None:
    store = NoteStore(db)
    try:
        server = build_server(store)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m native_host.notes_server", description=__doc__)
    parser.add_argument(
        "--db", type=Path, default=None, help="the SQLite file (default: in the Tabgate data folder)"
    )
    options = parser.parse_args(argv)
    anyio.run(serve, options.db or default_db())


if __name__ == "__main__":
    main()
