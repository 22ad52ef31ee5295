"""What `python3 build.py` produces: a loadable, self-contained extension with a stable id."""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from buildsys.identity import EXTENSION_KEY, extension_id
from buildsys.project import ROOT, project_version
from buildsys.wheels import build_core_wheel

pytestmark = pytest.mark.unit

EXT = ROOT / "dist" / "extension"
TEXT_SUFFIXES = {".js", ".mjs", ".html", ".json", ".css"}
# An address with a host in it. Pyodide's socket helper builds `https://${host}` from a caller's argument,
# which names no host of its own; that is the only http(s) text allowed in what ships.
URL = re.compile(r"(?:https?|wss?|ftp)://(?!\$\{)[A-Za-z0-9]")


@pytest.fixture(scope="module")
def manifest() -> dict[str, object]:
    return json.loads((EXT / "manifest.json").read_text())


def test_extension_id_is_derived_from_the_fixed_key(manifest: dict[str, object]) -> None:
    assert manifest["key"] == EXTENSION_KEY
    assert extension_id() == "aiflcfephbehodcbbjggcmhdjpgmidmd"


def test_csp_allows_wasm_but_no_eval_and_no_remote_script(manifest: dict[str, object]) -> None:
    csp = manifest["content_security_policy"]
    assert isinstance(csp, dict) and set(csp) == {"extension_pages", "sandbox"}
    assert csp["extension_pages"] == "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'"


def test_the_app_sandbox_page_has_an_opaque_origin_and_no_eval(manifest: dict[str, object]) -> None:
    """MCP Apps' proxy page (contract §10): each View's own CSP narrows this one inside it."""
    assert manifest["sandbox"] == {"pages": ["ui/app_sandbox.html"]}
    csp = manifest["content_security_policy"]
    assert isinstance(csp, dict)
    assert csp["sandbox"].startswith("sandbox allow-scripts;")
    assert "allow-same-origin" not in csp["sandbox"] and "unsafe-eval" not in csp["sandbox"]


def test_service_worker_is_a_module(manifest: dict[str, object]) -> None:
    assert manifest["background"] == {"service_worker": "worker/sw.js", "type": "module"}


def test_no_url_in_the_extension_points_outside_it() -> None:
    offenders = []
    for path in EXT.rglob("*"):
        if path.suffix in TEXT_SUFFIXES:
            for match in URL.finditer(path.read_text(errors="replace")):
                offenders.append(f"{path.relative_to(EXT)}: {match.group(0)}")
    assert offenders == []


def test_lock_file_lists_only_the_wheels_that_ship_with_matching_hashes() -> None:
    import hashlib

    lock = json.loads((EXT / "pyodide" / "pyodide-lock.json").read_text())
    shipped = {"annotated-types", "pydantic", "pydantic-core", "tabgate-core", "typing-extensions"}
    assert set(lock["packages"]) == shipped | {"typing-inspection"}
    for pkg in lock["packages"].values():
        wheel = EXT / "pyodide" / pkg["file_name"]
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == pkg["sha256"], pkg["name"]
    assert lock["info"]["abi_version"] == "2026_0"


def test_core_wheel_holds_the_core_and_nothing_of_the_host() -> None:
    (wheel,) = (EXT / "pyodide").glob("tabgate_core-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "core/runtime/bridge.py" in names
    assert not [n for n in names if n.startswith("native_host")]


def test_zip_matches_the_unpacked_extension() -> None:
    archive = ROOT / "dist" / f"tabgate-extension-{project_version()}.zip"
    names = set(zipfile.ZipFile(archive).namelist())
    on_disk = {str(p.relative_to(EXT)) for p in EXT.rglob("*") if p.is_file()}
    assert names == on_disk


def test_pinned_pyodide_runtime_files_ship() -> None:
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert (EXT / "pyodide" / name).stat().st_size > 0
    assert not list(EXT.rglob("*.map"))


def test_an_unchanged_rebuild_reuses_the_cache() -> None:
    wheel = build_core_wheel()
    mtime = wheel.stat().st_mtime_ns
    assert build_core_wheel().stat().st_mtime_ns == mtime
