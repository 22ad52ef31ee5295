// Runs one Python file inside the pinned Pyodide (the built extension's runtime, lock file and wheels) and
// prints what its `main()` coroutine returns, as JSON. Usage: node pyodide_exec.mjs <runtimeDir> <file.py>
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPyodide } from "../../dist/extension/pyodide/pyodide.mjs";

const [runtimeDir, file] = process.argv.slice(2);
const base = runtimeDir.endsWith("/") ? runtimeDir : runtimeDir + "/";
const py = await loadPyodide({ indexURL: base, packageBaseUrl: base, lockFileURL: join(base, "pyodide-lock.json") });
await py.loadPackage(["tabgate-core"], { checkIntegrity: true, messageCallback: () => {} });
py.FS.writeFile("/home/pyodide/bench_module.py", readFileSync(file));
const result = await py.runPythonAsync(`
import sys, json
sys.path.insert(0, "/home/pyodide")
import bench_module
json.dumps(await bench_module.measure())
`);
console.log(result);
