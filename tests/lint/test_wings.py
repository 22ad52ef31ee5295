"""The house in wings (issue 26): every product module lives in a wing named for its concept, and imports run
one way — a wing uses only the wings below it in its package's order, never one above. The orders are this
test's tables: a new import against them fails here, naming the file, the import and both wings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parents[2]

# Top to bottom. A module may import its own wing and any wing after it.
CORE_WINGS = (
    "runtime",  # the bridge JavaScript calls, the facade for runtime messages, config, the catalog
    "mcp_apps",  # an MCP App's View and its bridge
    "agents",  # local agents: who each is, their tabs, their calls through the gateway, in plain words
    "tools",  # the router, registry, parallel gates and handlers
    "browser",  # browser actions, the debugger executor, the page outline
    "records",  # history and the activity log
    "host_link",  # the link to the native host: servers, MCP tools, requests
    "consent",  # what the person is asked, the last check at the page, where a tab may go
    "messages",  # the messages between processes, as models, and the events Python emits
    "calls",  # what a call is made of: items, specs, outputs, errors, capabilities, a call's tab scope
    "web",  # URLs as Chrome reads them, page text fenced as data
)
HOST_WINGS = (
    "cli", "host", "engine", "notes_server",  # the composition root and the command line, at the top
    "setup", "methods", "gateway", "servers", "notes_store", "process", "config",
)  # fmt: skip


def _imports(path: Path, package: str) -> list[tuple[int, str]]:
    """Every import of `package` in one file, TYPE_CHECKING ones included, relative ones made absolute."""
    found = []
    here = path.relative_to(ROOT).with_suffix("").parts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(here[: len(here) - node.level])
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            names = [name] + [f"{name}.{alias.name}" for alias in node.names]
            found += [(node.lineno, n) for n in names if n.startswith(package + ".")][:1]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith(package + ".")]
    return found


def _wing(path: Path, package: str) -> str:
    parts = path.relative_to(ROOT / package).with_suffix("").parts
    return parts[0]


@pytest.mark.parametrize(("package", "order"), [("core", CORE_WINGS), ("native_host", HOST_WINGS)])
def test_every_module_lives_in_a_known_wing(package: str, order: tuple[str, ...]) -> None:
    wings = {_wing(p, package) for p in (ROOT / package).rglob("*.py") if p.name != "__init__.py" or
             p.parent != ROOT / package}  # fmt: skip
    assert wings <= set(order), f"{package}: wings not in the order table: {sorted(wings - set(order))}"


@pytest.mark.parametrize(("package", "order"), [("core", CORE_WINGS), ("native_host", HOST_WINGS)])
def test_imports_run_one_way(package: str, order: tuple[str, ...]) -> None:
    against = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.parent == ROOT / package and path.name == "__init__.py":
            continue
        mine = _wing(path, package)
        for line, name in _imports(path, package):
            theirs = name.split(".")[1]
            if theirs in order and order.index(theirs) < order.index(mine):
                against.append(f"{path.relative_to(ROOT)}:{line} imports {name} ({mine} → {theirs}, upward)")
    assert against == []


def test_the_core_never_imports_the_host() -> None:
    """The core runs in Pyodide, where the host's package is not there."""
    bad = [f"{p.relative_to(ROOT)}:{line} {name}" for p in (ROOT / "core").rglob("*.py")
           for line, name in _imports(p, "native_host")]  # fmt: skip
    assert bad == []


IMPORT = re.compile(r"""(?:from\s+|import\(\s*)["']([^"']+)["']""")


def test_the_extensions_pages_and_its_worker_import_only_their_own_side_and_the_builds_tables() -> None:
    ext = ROOT / "extension"
    against = []
    for side, other in (("ui", "worker"), ("worker", "ui")):
        scripts = sorted((ext / side).glob("*.js")) + sorted((ext / side).glob("*.mjs"))
        assert scripts, f"no scripts in extension/{side}"
        for path in scripts:
            for target in IMPORT.findall(path.read_text()):
                if f"../{other}/" in target:
                    against.append(f"{path.relative_to(ROOT)} imports {target}")
    assert against == []


def test_no_product_file_is_over_400_lines() -> None:
    sources = [p for d in ("core", "native_host", "extension", "buildsys") for p in (ROOT / d).rglob("*")
               if p.suffix in {".py", ".js", ".mjs", ".html", ".css"}]  # fmt: skip
    long = {str(p.relative_to(ROOT)): n for p in sources if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
