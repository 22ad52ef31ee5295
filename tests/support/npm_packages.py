"""Pinned npm packages the tests install once into .cache/npm (third-party MCP servers, axe-core)."""

from __future__ import annotations

import json
import shutil
import subprocess
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
    """An npm package at an exact version whose tarball must have this integrity (as the registry and
    package-lock.json spell it), and the file of it that runs."""

    package: str
    version: str
    integrity: str
    entry: str


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


def pinned(pin: NpmPin) -> Path:
    """`pin`'s entry file, installed on first use; fails naming both hashes when what npm installed is not
    the pinned tarball."""
    path = npm_install(pin.package, pin.version, pin.entry)
    modules = next(folder for folder in path.parents if folder.name == "node_modules")
    lock = json.loads((modules / ".package-lock.json").read_text())
    got = lock["packages"][f"node_modules/{pin.package}"].get("integrity")
    if got != pin.integrity:
        pytest.fail(f"{pin.package}@{pin.version} has integrity {got}, not the pinned {pin.integrity}")
    return path
