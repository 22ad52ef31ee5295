"""The project's build script, loaded by path (its module name `build` would clash with PyPI's `build`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tabgate_build", ROOT / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
