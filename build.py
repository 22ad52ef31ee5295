#!/usr/bin/env python3
"""Tabgate's build, test, run and bench entry point (standard library only).

    python3 build.py          build dist/extension/ and dist/tabgate-extension-<version>.zip
    python3 build.py test     set up, build, then run every test tier
    python3 build.py run      set up, build, install the host for a dedicated profile, start Chromium
    python3 build.py bench    run the benchmarks; writes dist/bench.json and prints a table

Inputs are pinned and verified: the npm `pyodide` package (exact version + integrity hash), the Pyodide
wheels for pydantic and its dependencies (sha256), and the core wheel built here from core/.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
CACHE = ROOT / ".cache"
DIST = ROOT / "dist"
EXT_SRC = ROOT / "extension"
EXT_OUT = DIST / "extension"
MIN_PYTHON = (3, 12)

PYODIDE_VERSION = "314.0.7"
PYODIDE_INTEGRITY = (
    "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
)
# The runtime files the extension ships; the rest of the npm package (consoles, maps, typings) stays out.
PYODIDE_RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_PLATFORM = "pyemscripten_2026_0_wasm32"
PYODIDE_PYTHON = "3.14"

# Wheels the extension ships for the core (pydantic and its dependencies), pinned by hash.
EXTENSION_WHEELS = {
    "pydantic-2.14.3-py3-none-any.whl": "3f7b347782ab7e4cf4c798496ae3a82787d9f21ec12676a9c564355eeef8daa8",
    "pydantic_core-2.50.4-cp314-cp314-pyemscripten_2026_0_wasm32.whl": (
        "e6da138a1ecc1341c8b788a5ee822670b03788e1f5decf7af9d461de6e508b8e"
    ),
    "annotated_types-0.8.0-py3-none-any.whl": (
        "f072f4d804ea359e4eaf198b1af7a8b0943881a87f31bb764f8bf219bb9419e0"
    ),
    "typing_extensions-4.16.0-py3-none-any.whl": (
        "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8"
    ),
    "typing_inspection-0.4.5-py3-none-any.whl": (
        "bc210535442b39e1bf2805e0c7a17dfd6a4ace760c84c7f7d16245d23a6b1c39"
    ),
}
# Pure-Python wheels used only by the `pyodide` test tier to run pytest inside Pyodide.
PYODIDE_TEST_WHEELS = {
    "pytest-9.2.0-py3-none-any.whl": "07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588",
    "pluggy-1.7.0-py3-none-any.whl": "7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec",
    "iniconfig-2.3.1-py3-none-any.whl": "9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7",
    "packaging-26.3-py3-none-any.whl": "d7193f7c8e4e93f444fde0262bf90af30e16fa0ad0ad44cb553c87339b23cd1c",
    "pygments-2.21.0-py3-none-any.whl": "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9",
}

# The extension's fixed public key: its id is the same on every machine.
EXTENSION_KEY = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvI69hNUOEcn941XWEil5Y523y09TRNrtNQSedil4ZyLDKydEteS881Vik"
    "GkOYXaXWAa/jnZaUTaQFUZDxV4Qu/OhBJ4768FWeGqEh+Ty5wd03EzaBAtXYAz9sLf0JDuxxR6YyQGeAXVL06niRUOkoPTfW0Rmt8"
    "rtZuYIcwH6b+Atzg3tNnJ/XTubCisHmvB24JH1ypH7VOgzXwrrOFpcRaXLfLYlukHnDhsXyFRGgwsFhYBWRBbKLHzXQNeLxFBEUgB"
    "pk2zHd9WdPVLc1vyKl5dFfkxCFzXc56/n4nfNAmbAZlsvq5tFVjh95Y5lMTFirO+tbHPHg1nfX+6PKd3pIQIDAQAB"
)

# Pyodide only falls back to its CDN when no packageBaseUrl is given; the extension always gives one, and the
# build blanks the default so that no address outside the extension remains in what ships.
PYODIDE_CDN_DEFAULT = "https://cdn.jsdelivr.net/pyodide/v${U}/full/"

TIERS = ("lint", "unit", "pyodide", "host", "e2e", "faults")

# Python's boot files inside the extension (see extension/py_boot.mjs): every file of the wheels above in one
# image written into Pyodide's file system, and the memory snapshot of an interpreter that imported the core.
SITE_IMAGE = "python/site-packages.img"
SNAPSHOT = "python/snapshot.bin"
SITE_IMAGE_MAGIC = b"TGSITE01"


class BuildError(Exception):
    """A build step failed; the message says which and why."""


def log(msg: str) -> None:
    print(f"[tabgate] {msg}", flush=True)


def project_version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def extension_id(key_b64: str = EXTENSION_KEY) -> str:
    """Chrome's id for an extension with this public key: sha256 of the DER key, first 32 hex, a-p."""
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kw)  # type: ignore[call-overload, no-any-return]


# ---------------------------------------------------------------- set-up


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup() -> Path:
    """Create .venv from the running python3 and install the project with its dev extras (once per change)."""
    if sys.version_info < MIN_PYTHON:
        raise BuildError(
            f"Tabgate needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this is "
            f"{sys.version.split()[0]} ({sys.executable}). Install a newer Python (pyenv reads "
            ".python-version here) and run again."
        )
    py = venv_python()
    if not py.exists():
        log(f"creating .venv with {sys.executable}")
        run([sys.executable, "-m", "venv", str(VENV)])
    stamp = VENV / ".tabgate-installed"
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text() != want:
        log("installing tabgate with its dev extras into .venv")
        run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        run([str(py), "-m", "pip", "install", "-q", "-e", f"{ROOT}[dev]"])
        stamp.write_text(want)
    return py


# ---------------------------------------------------------------- pinned inputs


def fetch_pyodide() -> Path:
    """The npm `pyodide` package, checked against its pinned integrity hash; returns the unpacked folder."""
    dest = CACHE / f"pyodide-{PYODIDE_VERSION}"
    tgz = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if (dest / ".verified").exists():
        return dest
    CACHE.mkdir(exist_ok=True)
    if not tgz.exists():
        log(f"fetching pyodide {PYODIDE_VERSION} from the npm registry")
        npm = shutil.which("npm")
        if npm is None:
            raise BuildError("npm is needed to fetch the pinned Pyodide runtime; install Node.js and npm.")
        run(
            [npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", str(CACHE)],
            stdout=subprocess.DEVNULL,
        )
    algo, _, want = PYODIDE_INTEGRITY.partition("-")
    got = base64.b64encode(hashlib.new(algo, tgz.read_bytes()).digest()).decode()
    if got != want:
        tgz.unlink()
        raise BuildError(f"pyodide tarball integrity mismatch: want {PYODIDE_INTEGRITY}, got {algo}-{got}")
    shutil.rmtree(dest, ignore_errors=True)
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    (dest / ".verified").write_text(PYODIDE_INTEGRITY)
    return dest


def fetch_wheels(py: Path, pins: dict[str, str], folder: str) -> Path:
    """Download pinned Pyodide wheels with pip (hash-checked by pip and again here)."""
    dest = CACHE / folder
    dest.mkdir(parents=True, exist_ok=True)
    missing = [n for n, h in pins.items() if not (dest / n).exists() or sha256_file(dest / n) != h]
    if missing:
        log(f"fetching {len(missing)} wheel(s) for {PYODIDE_PLATFORM}")
        reqs = dest / "requirements.txt"
        reqs.write_text(
            "".join(f"{_req_of(n)} --hash=sha256:{pins[n]}\n" for n in missing),
        )
        run([str(py), "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--platform", PYODIDE_PLATFORM, "--python-version", PYODIDE_PYTHON,
             "--require-hashes", "-r", str(reqs), "-d", str(dest)])  # fmt: skip
    for name, want in pins.items():
        got = sha256_file(dest / name)
        if got != want:
            raise BuildError(f"{name}: sha256 {got} does not match the pinned {want}")
    return dest


def _req_of(wheel_name: str) -> str:
    dist, version = wheel_name.split("-")[:2]
    return f"{dist}=={version}"


def build_core_wheel() -> Path:
    """A wheel holding only the `core` package, for Pyodide (reproducible: fixed timestamps, sorted)."""
    version = project_version()
    name = f"tabgate_core-{version}-py3-none-any.whl"
    out = CACHE / "core-wheel" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    sources = sorted(p for p in (ROOT / "core").rglob("*") if p.is_file() and _ships(p))
    dist_info = f"tabgate_core-{version}.dist-info"
    files: dict[str, bytes] = {str(p.relative_to(ROOT)).replace(os.sep, "/"): p.read_bytes() for p in sources}
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: tabgate-core\nVersion: {version}\n"
        "Summary: Tabgate dispatch core (Pyodide build)\nRequires-Dist: pydantic\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tabgate-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{dist_info}/top_level.txt"] = b"core\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    content = b"".join(k.encode() + v for k, v in files.items())
    stamp = out.with_suffix(".sha256")
    if out.exists() and stamp.exists() and stamp.read_text() == hashlib.sha256(content).hexdigest():
        return out
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files.items():
            zf.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    stamp.write_text(hashlib.sha256(content).hexdigest())
    return out


def _ships(p: Path) -> bool:
    return "__pycache__" not in p.parts and p.suffix in {".py", ".typed", ".json"}


def make_lockfile(py: Path, pyodide_dir: Path, wheels: list[Path]) -> Path:
    """The extension's own pyodide-lock.json: the stock lock's platform info with only our wheels in it.

    Generated with pyodide-build's lockfile tool so every entry carries its sha256 and dependencies; the
    stock lock's 350 entries (served from a CDN) are dropped so nothing can point outside the extension.
    """
    work = CACHE / "lock"
    work.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256("".join(sorted(sha256_file(w) for w in wheels)).encode()).hexdigest()
    out = work / "pyodide-lock.json"
    stamp = work / "inputs.sha256"
    if out.exists() and stamp.exists() and stamp.read_text() == key:
        return out
    stock = json.loads((pyodide_dir / "package" / "pyodide-lock.json").read_text())
    # pyodide-lock 0.2.1 checks wheel tags against `platform_arch` and predates the pyemscripten_<abi>
    # platform tag, so the tool sees the ABI name; the output gets the stock platform back below.
    tool_input = {
        **stock,
        "packages": {},
        "info": {**stock["info"], "platform": f"pyemscripten_{stock['info']['abi_version']}"},
    }
    empty = work / "empty-lock.json"
    empty.write_text(json.dumps(tool_input))
    wheel_dir = work / "wheels"
    shutil.rmtree(wheel_dir, ignore_errors=True)
    wheel_dir.mkdir()
    for w in wheels:
        shutil.copy2(w, wheel_dir / w.name)
    pyodide_cli = py.parent / "pyodide"
    run([str(pyodide_cli), "lockfile", "add-wheels", "--input", str(empty), "--output", str(out),
         "--base-path", str(wheel_dir), *[str(wheel_dir / w.name) for w in wheels]],
        stdout=subprocess.DEVNULL)  # fmt: skip
    lock = json.loads(out.read_text())
    lock["info"] = stock["info"]
    out.write_text(json.dumps(lock, indent=1, sort_keys=True))
    for name, pkg in lock["packages"].items():
        if "/" in pkg["file_name"] or ":" in pkg["file_name"]:
            raise BuildError(f"lockfile entry {name} points outside the extension: {pkg['file_name']}")
    stamp.write_text(key)
    return out


# ---------------------------------------------------------------- Python boot files


def build_site_image(wheels: list[Path], out: Path) -> None:
    """Every file of the wheels, sorted, in one image: magic, u32 header length, header JSON, bytes."""
    files: dict[str, bytes] = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    files[info.filename] = zf.read(info)
    names = sorted(files)
    header = json.dumps({"files": [[n, len(files[n])] for n in names]}, separators=(",", ":")).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        f.write(SITE_IMAGE_MAGIC + len(header).to_bytes(4, "little") + header)
        for n in names:
            f.write(files[n])


def make_snapshot(staging: Path) -> dict[str, object]:
    """The memory snapshot of the staged extension's Python after `import core.bridge`, made in Node.

    Snapshots are not byte-reproducible (heap layout depends on the run), so one is cached per set of inputs:
    the same sources give the same shipped snapshot, and its sha256 goes into build-info.json.
    """
    node = shutil.which("node")
    if node is None:
        raise BuildError("node (Node.js 20) is needed to make Python's memory snapshot; install Node.js.")
    inputs = hashlib.sha256()
    for part in (staging / SITE_IMAGE, staging / "py_boot.mjs", ROOT / "tools" / "make_snapshot.mjs",
                 *(staging / "pyodide" / n for n in PYODIDE_RUNTIME)):  # fmt: skip
        inputs.update(sha256_file(part).encode())
    cached = CACHE / "snapshot" / inputs.hexdigest()
    if not (cached / "meta.json").exists():
        log("making Python's memory snapshot (Node)")
        # With stack switching, as in Chrome: the interpreter notes at start-up whether it can suspend.
        out = run([node, "--experimental-wasm-stack-switching", str(ROOT / "tools" / "make_snapshot.mjs"),
                   str(staging)], stdout=subprocess.PIPE)  # fmt: skip
        layout = json.loads(out.stdout.strip().splitlines()[-1])
        tmp = cached.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        shutil.move(staging / SNAPSHOT, tmp / "snapshot.bin")
        (tmp / "meta.json").write_text(json.dumps(layout))
        shutil.rmtree(cached, ignore_errors=True)
        tmp.rename(cached)
    shutil.copy2(cached / "snapshot.bin", staging / SNAPSHOT)
    layout = json.loads((cached / "meta.json").read_text())
    return {"file": SNAPSHOT, "sha256": sha256_file(staging / SNAPSHOT), **layout}


# ---------------------------------------------------------------- build


def build(py: Path | None = None) -> Path:
    py = py or setup()
    pyodide_dir = fetch_pyodide()
    wheel_dir = fetch_wheels(py, EXTENSION_WHEELS, "pyodide-wheels")
    wheels = [wheel_dir / n for n in EXTENSION_WHEELS] + [build_core_wheel()]
    lock = make_lockfile(py, pyodide_dir, wheels)
    version = project_version()

    staging = DIST / "extension.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(EXT_SRC, staging)
    manifest = json.loads((EXT_SRC / "manifest.json").read_text())
    manifest["version"] = version
    manifest["key"] = EXTENSION_KEY
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    runtime = staging / "pyodide"
    runtime.mkdir()
    for name in PYODIDE_RUNTIME:
        shutil.copy2(pyodide_dir / "package" / name, runtime / name)
    mjs = runtime / "pyodide.mjs"
    text = mjs.read_text()
    if PYODIDE_CDN_DEFAULT not in text:
        raise BuildError("pyodide.mjs no longer holds the expected CDN default; review the pin")
    mjs.write_text(text.replace(PYODIDE_CDN_DEFAULT, "./"))
    shutil.copy2(lock, runtime / "pyodide-lock.json")
    for w in wheels:
        shutil.copy2(w, runtime / w.name)
    build_site_image(wheels, staging / SITE_IMAGE)
    python = {
        "siteImage": {"file": SITE_IMAGE, "sha256": sha256_file(staging / SITE_IMAGE)},
        "snapshot": make_snapshot(staging),
    }
    (staging / "build-info.json").write_text(
        json.dumps({"version": version, "pyodide": PYODIDE_VERSION, "coreWheel": wheels[-1].name,
                    "python": python}) + "\n"
    )  # fmt: skip
    shutil.rmtree(EXT_OUT, ignore_errors=True)
    staging.rename(EXT_OUT)

    archive = DIST / f"tabgate-extension-{version}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(EXT_OUT.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(EXT_OUT))
    log(f"built {EXT_OUT.relative_to(ROOT)} and {archive.relative_to(ROOT)}")
    print(f"extension id: {extension_id()}")
    return EXT_OUT


# ---------------------------------------------------------------- test / run / bench


def test(tiers: list[str]) -> int:
    py = setup()
    build(py)
    fetch_wheels(py, PYODIDE_TEST_WHEELS, "pyodide-test-wheels")
    unknown = [t for t in tiers if t not in TIERS]
    if unknown:
        raise BuildError(f"unknown test tier(s) {unknown}; tiers are {', '.join(TIERS)}")
    totals = {"passed": 0, "failed": 0}
    failed_tiers = []
    for tier in tiers or TIERS:
        log(f"tier {tier}")
        report = DIST / f"pytest-{tier}.json"
        rc = subprocess.run(
            [
                str(py),
                "-m",
                "pytest",
                "-m",
                tier,
                "-p",
                "no:cacheprovider",
                f"--junitxml={report}.xml",
                "tests",
            ],
            cwd=ROOT,
        ).returncode
        passed, failed = _junit_counts(Path(f"{report}.xml"))
        totals["passed"] += passed
        totals["failed"] += failed
        # Exit 5 (no tests collected) is a failure too: a tier that cannot run must say so.
        if rc != 0 or passed == 0:
            failed_tiers.append(f"{tier} (pytest exit {rc}, {passed} passed)")
    if failed_tiers:
        log("FAILED tiers: " + "; ".join(failed_tiers))
    print(f"tabgate: {totals['passed']} passed, {totals['failed']} failed")
    return 1 if failed_tiers else 0


def _junit_counts(path: Path) -> tuple[int, int]:
    import xml.etree.ElementTree as ET

    if not path.exists():
        return 0, 1
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    tests = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return tests - bad - skipped, bad + skipped


def run_app() -> int:
    py = setup()
    build(py)
    return subprocess.run([str(py), "-m", "tests.support.run_app"], cwd=ROOT).returncode


def bench() -> int:
    py = setup()
    build(py)
    fetch_wheels(py, PYODIDE_TEST_WHEELS, "pyodide-test-wheels")
    return subprocess.run([str(py), "-m", "tests.support.bench"], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "build"
    try:
        if cmd == "build":
            build()
            return 0
        if cmd == "test":
            return test(argv[1:])
        if cmd == "run":
            return run_app()
        if cmd == "bench":
            return bench()
        if cmd == "id":
            print(extension_id())
            return 0
    except BuildError as e:
        print(f"build.py: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(f"build.py: command failed ({e.returncode}): {' '.join(map(str, e.cmd))}", file=sys.stderr)
        return 2
    print(f"build.py: unknown command {cmd!r}; use build, test, run, bench", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
