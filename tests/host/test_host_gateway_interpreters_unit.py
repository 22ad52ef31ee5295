"""What an interpreter agent runs, read from its command line by that interpreter's option grammar
(contract §8.2): options and their values are skipped, the script is made absolute and resolved; inline
code, modules, relative paths, options that load other code and options not known are told apart, never
taken for a script."""

from __future__ import annotations

import os

import pytest

from core.agents.interpreter_names import INTERPRETERS
from native_host.gateway.interpreters import runs_of

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("executable", "argv", "kind", "target"),
    [
        (
            "/usr/bin/node",
            ["node", "--enable-source-maps", "/opt/g/gemini.js", "mcp"],
            "script",
            "/opt/g/gemini.js",
        ),
        ("/usr/bin/node", ["node", "--title", "/opt/g/gemini.js", "/tmp/evil.js"], "script", "/tmp/evil.js"),
        ("/usr/bin/node", ["node", "--max-old-space-size=8000", "--", "/a.js"], "script", "/a.js"),
        ("/usr/bin/node", ["node", "-e", "code"], "inline", ""),
        ("/usr/bin/node", ["node", "--input-type=module", "--eval=code"], "inline", ""),
        ("/usr/bin/node", ["node", "-r", "/tmp/evil.js", "/opt/g/gemini.js"], "unread", "-r /tmp/evil.js"),
        ("/usr/bin/node", ["node", "--made-up", "/opt/g/gemini.js", "/tmp/evil.js"], "unread", "--made-up"),
        ("/usr/bin/node", ["node"], "none", ""),
        ("/usr/bin/node", ["node /opt/g/gemini.js", "", ""], "none", ""),  # argv rewritten by process.title
        ("/usr/bin/node", ["node", "agent.mjs"], "relative", "/home/ada/agent.mjs"),
        (
            "/usr/bin/python3.13",
            ["python3", "-u", "-X", "dev", "-Wignore", "/opt/a.py"],
            "script",
            "/opt/a.py",
        ),
        ("/usr/bin/python3.13", ["python3", "-uBc", "print(1)"], "inline", ""),
        ("/usr/bin/python3.13", ["python3", "-Im", "pkg.cli", "x"], "module", "pkg.cli"),
        ("/usr/bin/python3.13", ["python3", "-"], "none", ""),
        ("/usr/bin/bash", ["bash", "-ec", "tabgate-host mcp"], "inline", ""),
        ("/usr/bin/bash", ["bash", "-o", "pipefail", "/opt/run.sh"], "script", "/opt/run.sh"),
        (
            "/usr/bin/java",
            ["java", "-Xmx1g", "-Dk=v", "-cp", "/x", "-jar", "/opt/a.jar"],
            "script",
            "/opt/a.jar",
        ),
        (
            "/usr/bin/java",
            ["java", "-cp", "/x", "com.example.Main"],
            "module",
            "com.example.Main",
        ),
        (
            "/usr/bin/java",
            ["java", "-javaagent:/tmp/x.jar", "-jar", "/a.jar"],
            "unread",
            "-javaagent /tmp/x.jar",
        ),
        ("/usr/bin/perl", ["perl", "-wle", "print"], "inline", ""),
        ("/usr/bin/perl", ["perl", "-Mevil", "/opt/a.pl"], "unread", "-M evil"),
        ("/usr/bin/ruby3.3", ["ruby", "-w", "/opt/a.rb"], "script", "/opt/a.rb"),
        ("/usr/bin/ruby3.3", ["ruby", "-C", "/opt", "a.rb"], "unread", "-C"),
        ("/usr/bin/deno", ["deno", "run", "-A", "--allow-net=x", "/opt/a.ts"], "script", "/opt/a.ts"),
        ("/usr/bin/deno", ["deno", "eval", "code"], "inline", ""),
        ("/usr/bin/php8.2", ["php", "-d", "x=1", "-f", "/opt/a.php"], "script", "/opt/a.php"),
        ("/usr/bin/bun", ["bun", "x", "some-package"], "module", "some-package"),
    ],
)
def test_an_interpreters_command_line_says_what_it_runs(
    executable: str, argv: list[str], kind: str, target: str
) -> None:
    runs = runs_of(executable, argv, "/home/ada")
    assert runs is not None
    expected = os.path.realpath(target) if kind == "script" else target
    assert (runs.kind, runs.target) == (kind, expected)


@pytest.mark.parametrize("executable", ["/usr/local/bin/codex", "/opt/claude/claude.exe", "/usr/bin/nodemon"])
def test_a_program_that_is_not_an_interpreter_runs_itself(executable: str) -> None:
    assert runs_of(executable, [executable, "anything.js"], "/") is None


def test_every_interpreter_the_config_refuses_to_trust_alone_has_a_grammar_here() -> None:
    # core/agents/interpreter_names.py names the families (the config reads it too); each is read here.
    for family, pattern in INTERPRETERS.items():
        name = {"shell": "bash", "python": "python3"}.get(family, family)
        assert pattern.fullmatch(name), family
        assert runs_of(f"/usr/bin/{name}", [name], "/") is not None, family
