"""Pinned npm packages the tests install once into .cache/npm (third-party MCP servers, axe-core)."""

from __future__ import annotations

import shutil
import subprocess
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
