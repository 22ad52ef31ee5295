"""Which programs are interpreters, known by their file's name (its links followed; versioned names too:
python3.13, ruby3.3). An agent an interpreter runs is told apart by what it runs (the host reads that from its
command line, native_host/gateway/interpreters.py, with each family's own grammar), and trust never goes to an
interpreter alone (core/runtime/config.py refuses one in `gatewayTrusted`)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

INTERPRETERS: dict[str, re.Pattern[str]] = {
    "node": re.compile(r"node(js)?(\d+)?"),
    "bun": re.compile(r"bun"),
    "deno": re.compile(r"deno"),
    "python": re.compile(r"(python|pypy)(\d+(\.\d+)*)?[tdm]*"),
    "ruby": re.compile(r"ruby(\d+(\.\d+)*)?"),
    "perl": re.compile(r"perl(\d+(\.\d+)*)?"),
    "php": re.compile(r"php(-cli)?(\d+(\.\d+)*)?"),
    "java": re.compile(r"java"),
    "shell": re.compile(r"(ba|da|z|k|mk|fi|c|tc)?sh|busybox"),
    "lua": re.compile(r"lua(jit)?(\d+(\.\d+)*)?"),
}


def interpreter_of(executable: str) -> str | None:
    """The interpreter family `executable` belongs to, or None for a program that runs itself (codex, …)."""
    name = PurePosixPath(executable).name
    return next((family for family, pattern in INTERPRETERS.items() if pattern.fullmatch(name)), None)
