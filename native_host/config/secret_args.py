"""Command-line arguments that look like secrets, hidden for display (`config show`).

Servers are often given keys on their command line: `--api-key=…`, `--token …`, `-e GITHUB_TOKEN=…`,
`-H "Authorization: Bearer …"`, a URL with a password, or a bare token with a well-known prefix."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .redact import REDACTED, redact_url

# Parts of a flag, variable or header name that mark its value as a secret (compared without - _ .).
_SECRET_NAMES: Final = (
    "apikey",
    "accesskey",
    "privatekey",
    "secret",
    "token",
    "password",
    "passwd",
    "passphrase",
    "authorization",
    "auth",
    "credential",
    "cookie",
    "bearer",
)
# Tokens recognisable on their own: OpenAI/Anthropic-style, GitHub, GitLab, Slack, AWS access keys.
_TOKEN: Final = re.compile(
    r"(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_\w{20,}|glpat-[\w-]{16,}"
    r"|xox[abprs]-[\w-]{8,}|AKIA[0-9A-Z]{16}|(?:Bearer|Basic)\s+\S+"
)
_ASSIGNMENT: Final = re.compile(r"(-{0,2}[A-Za-z_][\w.-]*)=(.*)", re.DOTALL)  # --name=value, NAME=value
_HEADER: Final = re.compile(r"([A-Za-z][\w-]*):\s*(.*)", re.DOTALL)  # Name: value
_FLAG: Final = re.compile(r"-{1,2}[A-Za-z][\w.-]*")


def secret_name(name: str) -> bool:
    plain = re.sub(r"[-_.]", "", name).lower()
    return any(part in plain for part in _SECRET_NAMES)


def redact_arg(arg: str) -> str:
    """One argument with its secret part hidden (the name before it kept, so the line still reads)."""
    if _TOKEN.fullmatch(arg.strip()):
        return REDACTED
    if "://" in arg and " " not in arg:
        return redact_url(arg)
    named = _HEADER.fullmatch(arg) or _ASSIGNMENT.fullmatch(arg)
    if named is None:
        return arg
    name, value = named.groups()
    return arg[: named.start(2)] + (REDACTED if secret_name(name) else redact_arg(value))


def redact_args(args: Sequence[str]) -> list[str]:
    """The arguments with secret values hidden, including the value that follows a secret flag."""
    shown: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next and not arg.startswith("--"):
            shown.append(REDACTED)
            hide_next = False
            continue
        hide_next = bool(_FLAG.fullmatch(arg)) and secret_name(arg)
        shown.append(redact_arg(arg))
    return shown
