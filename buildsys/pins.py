"""Every pinned input of the build: the Pyodide runtime and the wheels, each with its hash."""

from __future__ import annotations

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
