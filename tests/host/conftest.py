"""Host-tier fixtures: a fresh profile folder, the launcher `install` writes there, hosts started from it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostproc import HostProcess, install


@dataclass(frozen=True)
class HostDirs:
    root: Path
    profile: Path  # what Chrome gets as --user-data-dir
    config: Path
    logs: Path
    data: Path

    @property
    def env(self) -> dict[str, str]:
        return {"TABGATE_LOG_DIR": str(self.logs), "TABGATE_DATA_DIR": str(self.data)}


@pytest.fixture
def host_dirs(tmp_path: Path) -> HostDirs:
    return HostDirs(
        tmp_path, tmp_path / "profile", tmp_path / "config.toml", tmp_path / "logs", tmp_path / "data"
    )


@pytest.fixture
def launcher(host_dirs: HostDirs) -> Path:
    if not host_dirs.config.exists():
        host_dirs.config.write_text("# no servers\n")
    return install(host_dirs.profile, host_dirs.config, env=None)


type StartHost = Callable[..., HostProcess]


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
