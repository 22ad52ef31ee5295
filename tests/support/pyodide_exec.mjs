// Runs one Python file inside the pinned Pyodide, booted from the built extension as its Python worker boots
// it, and prints what its `measure()` coroutine returns, as JSON.
// Usage: node pyodide_exec.mjs <extensionDir or its pyodide/ folder> <file.py>
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { bootExtensionPython } from "./boot_python.mjs";

// The snapshot is made for engines with JS promise integration (Chrome); Node 20 has it behind a flag.
if (!("Suspender" in WebAssembly) && !("Suspending" in WebAssembly)) {
  const args = ["--experimental-wasm-stack-switching", ...process.argv.slice(1)];
  process.exit(spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1);
}

const [dir, file] = process.argv.slice(2);
const py = await bootExtensionPython(basename(dir) === "pyodide" ? dirname(dir) : dir);
py.FS.writeFile("/home/pyodide/bench_module.py", readFileSync(file));
const result = await py.runPythonAsync(`
import sys, json
sys.path.insert(0, "/home/pyodide")
import bench_module
json.dumps(await bench_module.measure())
`);
console.log(result);
