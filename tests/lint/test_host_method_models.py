"""Every host method is sent and read with its one params model (core/messages/host_methods.py, issue 26
Deliver 1): the host answers exactly the methods that have one, no module spells a method's name where it
sends or parses one, and the host's handlers define no params model of their own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.messages.host_methods import CANCEL_REQUEST, HOST_METHODS
from native_host.process.jsonrpc import CANCEL_METHOD
from native_host.process.method_table import LOOP_METHODS

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parents[2]
NAMES = {*HOST_METHODS, CANCEL_REQUEST.name}
# Where the names are defined: the models, and the host's method table (standard library only).
DEFINED = {
    "core/messages/host_methods.py",
    "native_host/process/method_table.py",
    "native_host/process/jsonrpc.py",
}
# Runtime message types that happen to share a host method's name (`servers/restart`): their own models.
RUNTIME_MODELS = "core/messages/runtime_messages.py"


def _sources() -> list[Path]:
    """The two ends: the core that sends host methods, the host's handlers that answer them (the gateway's
    own methods, an agent's `tools/call`, are the agents' MCP and not these)."""
    return sorted([*(ROOT / "core").rglob("*.py"), *(ROOT / "native_host" / "methods").rglob("*.py")])


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def test_the_host_answers_exactly_the_methods_that_have_a_model() -> None:
    assert set(LOOP_METHODS) == set(HOST_METHODS)
    assert CANCEL_REQUEST.name == CANCEL_METHOD


def test_no_call_names_a_host_method_or_builds_its_params_as_a_dict() -> None:
    """`ask_host(mcp, "tools/call", {...})` or a handler matching on a method's name: the method goes by its
    `HostMethod` and its params by their model."""
    found = []
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        if rel in DEFINED:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            if rel == RUNTIME_MODELS and isinstance(node.func, ast.Name) and node.func.id == "message":
                continue
            for value in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(value, ast.Constant) and value.value in NAMES:
                    found.append(f"{_where(path, node)} names {value.value!r}")
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if (
                rel.startswith("core/")
                and func in {"ask_host", "ask_for_object", "request"}
                and any(isinstance(value, ast.Dict) for value in node.args)
            ):
                found.append(f"{_where(path, node)} sends params built as a dict")
    assert found == []


def test_the_hosts_handlers_read_params_only_through_the_shared_models() -> None:
    """No params model of the host's own, and no request's params validated past `parse_params`."""
    found = []
    for path in sorted((ROOT / "native_host" / "methods").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Params"):
                found.append(f"{_where(path, node)} defines {node.name}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "model_validate"
                and path.name != "params.py"
                and "host_methods" not in ast.unparse(node.func.value)
                and not ast.unparse(node.func.value).endswith("CANCEL_REQUEST.params")
            ):
                found.append(f"{_where(path, node)} validates {ast.unparse(node)}")
    assert found == []
