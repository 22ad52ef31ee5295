"""Where the host keeps its config, logs and data (platformdirs, with env overrides for tests)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from .identity import APP_NAME

ENV_CONFIG = "TABGATE_CONFIG"
ENV_LOG_DIR = "TABGATE_LOG_DIR"
ENV_DATA_DIR = "TABGATE_DATA_DIR"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().absolute() if value else None


def default_config_path() -> Path:
    return (
        _env_path(ENV_CONFIG) or Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"
    )


def log_dir() -> Path:
    return _env_path(ENV_LOG_DIR) or Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return _env_path(ENV_DATA_DIR) or Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
