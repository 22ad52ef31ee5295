"""Progress of an agent's running call: the browser names the call (`gateway/progress {session, ref, …}`,
`ref` as the host gave it with `gateway/call`); the agent gets `notifications/progress` for its request."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..config.redact import KNOWN_SECRETS, scrub_data
from ..process.jsonrpc import JsonObject, RequestId, notification_message

log = logging.getLogger(__name__)


class CallProgress(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    session: str
    ref: int
    progress: float
    total: float | None = None
    message: str | None = None


def parse_progress(params: dict[str, Any]) -> CallProgress | None:
    try:
        return CallProgress.model_validate(params)
    except ValidationError:
        log.info("ignoring a gateway/progress without a usable session, ref and progress")
        return None


def progress_message(note: CallProgress, request_id: RequestId) -> JsonObject:
    """The agent's notification; the host's relay to agents calls it `requestId` (agent_server.py)."""
    progress = note.model_dump(exclude={"session", "ref"}, exclude_none=True)
    return notification_message(
        "notifications/progress", scrub_data({"requestId": request_id, **progress}, KNOWN_SECRETS)
    )
