"""Every runtime message and event is a model (core/messages/runtime_messages.py, event_messages.py): the
JavaScript
names each by the constants the build generates from them, Python dispatches exactly the models it answers,
and docs/protocol.md's tables are the generated ones (contract §11)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from buildsys.message_types import DOC, constant_name, describe, render_doc, render_js, with_tables
from buildsys.project import ROOT
from core.agents.agent_calls import AgentGateway
from core.messages.event_messages import EVENTS
from core.messages.runtime_messages import MESSAGES
from core.runtime.facade import Service

pytestmark = pytest.mark.unit

TYPES = set(MESSAGES) | set(EVENTS)
# A message type written out where a message is built or read, instead of its constant.
LITERAL_TYPE = re.compile(r'(?:\btype: |\.type [!=]== )"([^"]+)"')
# A message or event built on a line that sends or broadcasts it: its type must be a constant.
SENT_LITERAL = re.compile(r'(?:send|python\.call|python\.notify|broadcast|onEvent)\(\{[^}]*\btype: "([^"]+)"')
CONSTANT = re.compile(r"\b(MessageType|EventType)\.([A-Z_]+)\b")


def _scripts() -> list[Path]:
    sources = sorted((ROOT / "extension").rglob("*.js"))
    assert len(sources) > 30, "the extension's scripts were not found"
    return sources


def _lines() -> list[tuple[str, str]]:
    return [
        (f"{path.relative_to(ROOT)}:{n}", line)
        for path in _scripts()
        for n, line in enumerate(path.read_text().splitlines(), 1)
    ]


def test_the_javascript_writes_no_message_type_out() -> None:
    literal = {
        where: found for where, line in _lines() for found in LITERAL_TYPE.findall(line) if found in TYPES
    }
    sent = {where: found for where, line in _lines() for found in SENT_LITERAL.findall(line)}
    assert literal == {}
    assert sent == {}, "a message sent without its model: add one in core/messages/*_messages.py"


def test_every_constant_the_javascript_uses_is_a_model() -> None:
    known = {
        "MessageType": {constant_name(kind) for kind in MESSAGES},
        "EventType": {constant_name(kind) for kind in EVENTS},
    }
    used = {(table, name) for _, line in _lines() for table, name in CONSTANT.findall(line)}
    assert used, "no script uses the generated constants"
    assert {f"{table}.{name}" for table, name in used if name not in known[table]} == set()


def test_every_message_model_is_sent_by_some_script() -> None:
    """A model nobody sends is a message that no longer exists (Python's own are checked below)."""
    used = {name for _, line in _lines() for _, name in CONSTANT.findall(line)}
    unused = {kind for kind, model in MESSAGES.items() if constant_name(kind) not in used}
    # Its first name, sent by the gateway bench only.
    assert unused == {"gateway/agents"}


def test_python_answers_exactly_the_models_it_is_said_to() -> None:
    service = Service(emit=lambda event: None)
    gateway = AgentGateway(service, None, lambda event: None)
    both = set(service.routes) & set(gateway.routes)
    routed = set(service.routes) | set(gateway.routes)
    assert both == set()
    assert {model.TYPE for model in routed} == {k for k, m in MESSAGES.items() if m.BY == "python"}


def test_core_builds_no_event_or_message_as_a_dict_literal() -> None:
    """Python emits and sends through the models, so a type is never spelled twice."""
    found = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "type"
                    and isinstance(value, ast.Constant)
                    and value.value in TYPES
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {value.value}")
    assert found == []


def test_the_docs_message_tables_are_the_generated_ones() -> None:
    doc = DOC.read_text()
    assert with_tables(doc, render_doc(describe())) == doc, "run `python3 build.py` to write them"


def test_the_generated_module_names_every_type_once() -> None:
    text = render_js(describe())
    for kind in TYPES:
        assert f'{constant_name(kind)}: "{kind}",' in text
    assert len({constant_name(kind) for kind in MESSAGES}) == len(MESSAGES)
    assert len({constant_name(kind) for kind in EVENTS}) == len(EVENTS)
