"""`update_plan` (codex `handlers/plan.rs`): the model keeps a step list; the popup shows the latest."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from core.calls.arguments import parse_arguments_model
from core.calls.errors import RespondToModel
from core.calls.output import FunctionOutput
from core.calls.payload import FunctionPayload, PayloadKind, ToolCall
from core.calls.spec import ToolSpec, parameters_schema
from core.messages.emit import Emit, plan_update


class PlanItem(BaseModel):
    model_config = ConfigDict(frozen=True, json_schema_extra={"additionalProperties": False})

    step: str
    status: Literal["pending", "in_progress", "completed"] = Field(
        description="One of: pending, in_progress, completed"
    )


class UpdatePlanArgs(BaseModel):
    model_config = ConfigDict(frozen=True, json_schema_extra={"additionalProperties": False})

    explanation: Annotated[str | None, WithJsonSchema({"type": "string"})] = None
    plan: list[PlanItem] = Field(description="The list of steps")

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump()


UPDATE_PLAN = ToolSpec(
    name="update_plan",
    description=(
        "Updates the task plan.\n"
        "Provide an optional explanation and a list of plan items, each with a step and status.\n"
        "At most one step can be in_progress at a time.\n"
    ),
    parameters=parameters_schema(UpdatePlanArgs),
    supports_parallel=False,
)


class PlanBoard:
    """The last plan the model set; it outlives registry rebuilds."""

    def __init__(self) -> None:
        self.current: UpdatePlanArgs | None = None

    def to_wire(self) -> dict[str, Any]:
        if self.current is None:
            return {"explanation": None, "plan": []}
        return self.current.to_wire()


class PlanHandler:
    accepts = frozenset({PayloadKind.FUNCTION})

    def __init__(self, emit: Emit, board: PlanBoard) -> None:
        self._emit = emit
        self._board = board

    async def handle(self, call: ToolCall) -> FunctionOutput:
        if not isinstance(call.payload, FunctionPayload):
            raise RespondToModel("update_plan handler received unsupported payload")
        args = parse_arguments_model(UpdatePlanArgs, call.payload.arguments)
        self._board.current = args
        self._emit(plan_update(args.to_wire()))
        return FunctionOutput("Plan updated")
