"""What `python3 build.py` runs, one module per step.

Standard library only: build.py runs these under the system python3 before `.venv` exists; tools from the
venv (pip, pyodide-build's lockfile tool) are run as commands.
"""
