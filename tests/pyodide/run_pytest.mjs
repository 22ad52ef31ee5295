// Runs pytest inside the pinned Pyodide under Node, booted from the built extension exactly as its Python
// worker boots (tests/support/boot_python.mjs: the memory snapshot, or TABGATE_BOOT=full for a full boot)
// — the same files, checked the same way.
// Usage: node --experimental-wasm-stack-switching run_pytest.mjs <extensionDir> <testWheelsDir> <projectDir> [pytest args...]
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { bootExtensionPython } from "../support/boot_python.mjs";

const [extensionDir, testWheelsDir, projectDir, ...pytestArgs] = process.argv.slice(2);

const t0 = performance.now();
const py = await bootExtensionPython(extensionDir);
for (const name of readdirSync(testWheelsDir).filter((n) => n.endsWith(".whl"))) {
  py.unpackArchive(new Uint8Array(readFileSync(join(testWheelsDir, name))), "wheel");
}
console.error(`pyodide: ${process.env.TABGATE_BOOT === "full" ? "full boot" : "restored"} in ${Math.round(performance.now() - t0)} ms (Python ${py.version})`);

// The tests and the project's pytest settings go into Pyodide's file system; `core` itself comes from the wheel.
function copyTree(src, dest) {
  py.FS.mkdirTree(dest);
  for (const name of readdirSync(src)) {
    if (name === "__pycache__") continue;
    const s = join(src, name);
    if (statSync(s).isDirectory()) copyTree(s, join(dest, name));
    else py.FS.writeFile(join(dest, name), readFileSync(s));
  }
}
const work = "/home/pyodide/project";
copyTree(join(projectDir, "tests", "core"), join(work, "tests", "core"));
py.FS.writeFile(join(work, "tests", "__init__.py"), "");
py.FS.writeFile(join(work, "pyproject.toml"), readFileSync(join(projectDir, "pyproject.toml")));

py.globals.set("PYTEST_ARGS", py.toPy(pytestArgs));
const code = await py.runPythonAsync(`
import os, sys, pytest, core
os.chdir("${work}")
sys.path.insert(0, "${work}")
# Prove the core under test is the wheel the extension ships, not a copy of the sources.
assert "site-packages" in core.__file__, core.__file__
pytest.main(["-p", "no:cacheprovider", "-q", *PYTEST_ARGS, "tests/core"])
`);
process.exit(Number(code));
