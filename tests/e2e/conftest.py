from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, sync_playwright

from tests.support import default_place
from tests.support.browser import Extension, install_host, launch


@pytest.fixture(scope="module", autouse=True)
def default_place_given_back() -> Iterator[None]:
    """A module that claimed the default place has closed its browsers when it ends (its module-scoped
    browsers are torn down before this): other runs and tiers may have it."""
    yield
    default_place.release()


@pytest.fixture(scope="session")
def pw() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def host_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Keeps the host's logs and data inside the test's temporary folder."""
    base = tmp_path_factory.mktemp("host-home")
    return {"TABGATE_LOG_DIR": str(base / "logs"), "TABGATE_DATA_DIR": str(base / "data")}


@pytest.fixture(scope="module")
def ext_without_host(pw: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Extension]:
    with launch(pw, tmp_path_factory.mktemp("profile-nohost")) as ext:
        ext.wait_python_ready()
        yield ext


def empty_config(folder: Path) -> Path:
    config = folder / "config.toml"
    config.write_text("# no MCP servers\n")
    return config


@pytest.fixture(scope="module")
def ext_with_host(
    pw: Playwright,
    tmp_path_factory: pytest.TempPathFactory,
    host_env: dict[str, str],
) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-host")
    install_host(profile, empty_config(profile), env=host_env)
    with launch(pw, profile, env=host_env) as ext:
        ext.wait_python_ready()
        yield ext
