"""`tools/call` on a 2026-07-28 connection, where a server asks for input by answering `input_required`.

Such a server does not send elicitation requests: it answers the call with the questions (`inputRequests`)
and an opaque `requestState`, and the client calls again with the answers and that state. The questions go
through the client's own callbacks (the host's elicitation asks the person through the browser, as for an
initialize-era server's `elicitation/create`), so both eras reach the person the same way. The SDK's
`Client.call_tool` drives this too, but it also checks `structuredContent` against the tool's schema, which
is the caller's business here (the host passes results through).
"""

from __future__ import annotations

from typing import Annotated, Any, Final

import anyio
import mcp_types as types
from mcp import Client, MCPError
from mcp.client.session import ClientRequestContext
from mcp.shared.dispatcher import ProgressFnT
from pydantic import Discriminator, Tag, TypeAdapter

from .tasks import CreatedTask

MAX_ROUNDS: Final = 10  # the SDK's default cap: a server that never stops asking is an error, not a hang
# A round that only carries state (the server is still working) is tried again after a short pause.
STATE_ONLY_PAUSE_SECONDS: Final = 0.1


_CALL_RESULTS = types.CallToolResult | types.InputRequiredResult | CreatedTask
_NOT_A_PLAIN_RESULT: Final = frozenset({"taskId", "inputRequests", "requestState"})


def _kind(result: object) -> str:
    """ "result" when only `CallToolResult` can read `result` (it has `content`, says it is complete or says
    nothing, and has no key of a task or a question); "any" for everything else, read by the whole union."""
    if (
        isinstance(result, dict)
        and "content" in result
        and result.get("resultType", "complete") == "complete"
        and _NOT_A_PLAIN_RESULT.isdisjoint(result)
    ):
        return "result"
    return "any"


# A plain result is read into `CallToolResult` alone: the union tried all three models for every call, the
# costliest of the host's own steps on a call's way back (docs/benchmarks.md, "Fourth pass"). Questions, task
# handles and anything unusual still go through the union, so what each is read as is unchanged.
CALL_RESULT: Final = TypeAdapter(
    Annotated[
        Annotated[types.CallToolResult, Tag("result")] | Annotated[_CALL_RESULTS, Tag("any")],
        Discriminator(_kind),
    ]
)


async def call_tool(
    client: Client, name: str, arguments: dict[str, Any] | None, progress: ProgressFnT
) -> types.CallToolResult | CreatedTask:
    """The tool's result (or the task that will have it), the server's questions answered on the way."""
    session = client.session
    answers: types.InputResponses | None = None
    state: str | None = None
    for _ in range(MAX_ROUNDS + 1):
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(
                name=name, arguments=arguments, input_responses=answers, request_state=state
            )
        )
        result = await session.send_request(request, CALL_RESULT, progress_callback=progress)
        if isinstance(result, types.CallToolResult | CreatedTask):
            return result
        state, asked = result.request_state, result.input_requests or {}
        if not asked:
            await anyio.sleep(STATE_ONLY_PAUSE_SECONDS)
        answers = {key: await _answer(client, key, question) for key, question in asked.items()} or None
    raise MCPError(
        types.INTERNAL_ERROR, f"the server asked for input more than {MAX_ROUNDS} times for one call"
    )


async def _answer(client: Client, key: str, question: types.InputRequest) -> types.InputResponse:
    answer = await client.session.dispatch_input_request(
        ClientRequestContext(session=client.session, request_id=key), question
    )
    if isinstance(answer, types.ErrorData):
        raise MCPError(answer.code, answer.message, answer.data)
    return answer
