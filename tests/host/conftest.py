"""Host-tier fixtures: a fresh profile folder, the launcher `install` writes there, hosts started from it,
and real MCP servers (our own over stdio/HTTP/SSE, server-everything from npm, mcp-server-time)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostproc import HostProcess, install

from tests.support import default_place
from tests.support.default_place import kept_apart
from tests.support.http_servers import endpoint, serving
from tests.support.npm_packages import everything_server, node_path

HERE = Path(__file__).parent
SERVERS = HERE / "servers"
REPO = HERE.parent.parent
PYTHON = sys.executable
EVERYTHING_PAGED = "2025.9.25"  # 100 resources, 10 per page
EVERYTHING_PROGRESS = "2026.8.31"  # trigger-long-running-operation reports progress


@dataclass(frozen=True)
class HostDirs:
    root: Path
    profile: Path  # what Chrome gets as --user-data-dir
    config: Path
    logs: Path
    data: Path

    @property
    def env(self) -> dict[str, str]:
        """Logs and data in the test's folder, and the gateway's place too unless the test claimed the
        default place (`default_place_free`)."""
        own = {"TABGATE_LOG_DIR": str(self.logs), "TABGATE_DATA_DIR": str(self.data)}
        return kept_apart(own, self.root / "run")

    @classmethod
    def under(cls, root: Path) -> HostDirs:
        return cls(root, root / "profile", root / "config.toml", root / "logs", root / "data")


def toml_str(value: str | Path) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def stdio_server(name: str, script: str, *args: str, extra: str = "") -> str:
    """A config table for one of our test servers over stdio."""
    argv = ", ".join(toml_str(a) for a in ("-P", str(SERVERS / script), *args))
    return f"[mcp_servers.{name}]\ncommand = {toml_str(PYTHON)}\nargs = [{argv}]\n{extra}\n"


type StartHost = Callable[..., HostProcess]


@contextmanager
def running_host(dirs: HostDirs, config: str | None, **kwargs: object) -> Iterator[HostProcess]:
    """Install into dirs.profile (config text written first), start the host from the launcher, and at the end
    check it wrote nothing but frames and exits 0 on EOF."""
    dirs.root.mkdir(parents=True, exist_ok=True)
    dirs.config.write_text(config or "# no servers\n")
    launcher = install(dirs.profile, dirs.config)
    env = {**dirs.env, **kwargs.pop("env", {})}  # type: ignore[dict-item]
    host = HostProcess.start(launcher, env=env, **kwargs)  # type: ignore[arg-type]
    try:
        yield host
    finally:
        if host.process.poll() is None:
            host.close()
        else:
            host.kill()
    assert host.violations == [], f"non-frame output on stdout: {host.violations}"


@pytest.fixture(autouse=True)
def default_place_given_back() -> Iterator[None]:
    """A test that claimed the default place has closed its hosts when it ends: other runs may have it."""
    yield
    default_place.release()


@pytest.fixture
def host_dirs(tmp_path: Path) -> HostDirs:
    return HostDirs.under(tmp_path)


@pytest.fixture
def launcher(host_dirs: HostDirs) -> Path:
    if not host_dirs.config.exists():
        host_dirs.config.write_text("# no servers\n")
    return install(host_dirs.profile, host_dirs.config)


@pytest.fixture
def start_host(launcher: Path, host_dirs: HostDirs) -> Iterator[StartHost]:
    """Start hosts from the installed launcher; at the end, each must have written nothing but frames."""
    started: list[HostProcess] = []

    def start(**kwargs: object) -> HostProcess:
        env = {**host_dirs.env, **kwargs.pop("env", {})}  # type: ignore[dict-item]
        host = HostProcess.start(launcher, env=env, **kwargs)  # type: ignore[arg-type]
        started.append(host)
        return host

    yield start
    for host in started:
        host.kill()
        assert host.violations == [], f"non-frame output on stdout: {host.violations}"


# -- real servers ------------------------------------------------------------------------------------------


@contextmanager
def demo_over_http(mode: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Our demo server under uvicorn on 127.0.0.1; yields its URL (…/mcp or …/sse)."""
    with serving("demo_server.py", mode, env) as origin:
        yield endpoint(origin, mode)


@pytest.fixture(scope="session")
def node() -> str:
    return node_path()


@pytest.fixture(scope="session")
def everything_paged() -> Path:
    return everything_server(EVERYTHING_PAGED)


@pytest.fixture(scope="session")
def everything_progress() -> Path:
    return everything_server(EVERYTHING_PROGRESS)


@pytest.fixture(scope="session")
def time_server() -> str:
    found = Path(PYTHON).parent / "mcp-server-time"
    if not found.exists():
        pytest.fail(f"mcp-server-time is not installed next to {PYTHON} (it is a dev dependency)")
    return str(found)
