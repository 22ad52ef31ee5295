"""The small shapes runtime messages are made of (core/messages/runtime_messages.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

type Theme = Literal["light", "dark"]
Count = Annotated[StrictInt, Field(ge=0)]
Ms = Annotated[StrictFloat, Field(ge=0)]  # a time, in ms since the epoch
SessionId = Annotated[StrictStr, Field(min_length=1, max_length=200)]  # an agent's gateway session
# A page's address as the worker reports it: a longer one is refused rather than read (Chrome allows 2 MB).
PageUrl = Annotated[StrictStr, Field(max_length=8192)]
# A server's status as the host lists it: each entry is checked by core/host_link/servers.py, which skips
# (and logs) an invalid one rather than refusing every server's news.
ServerEntry = dict[str, Any]


class HistoryMeta(BaseModel):
    """One history entry as the worker's index holds it: `bytes` its stored size, `itemBytes` its call's
    arguments'."""

    model_config = ConfigDict(extra="ignore", strict=True)

    id: StrictStr
    status: StrictStr
    bytes: StrictInt
    itemBytes: StrictInt = 0
