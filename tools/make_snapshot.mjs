// Build step (Node): boots the staged extension's Python exactly as the worker's full boot does, imports the
// core, and saves a memory snapshot of that interpreter with the layout it must be restored into.
// Usage: node tools/make_snapshot.mjs <staged extension dir>   (writes python/snapshot.bin, prints JSON)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [extDir] = process.argv.slice(2);
const { bootPython, compileLibraries, readSiteImage } = await import(pathToFileURL(join(extDir, "py_boot.mjs")).href);

const files = readSiteImage(new Uint8Array(readFileSync(join(extDir, "python", "site-packages.img"))));
let layout = null;
const py = await bootPython({
  indexURL: join(extDir, "pyodide") + "/",
  inputs: compileLibraries(files).then((libraries) => ({ files, libraries })),
  makeSnapshot: true,
  onLayout: (l) => (layout = l),
});
// Open zip files are JS-side file descriptors the restored runtime would not have; drop every handle first.
py.runPython("import gc, importlib; importlib.invalidate_caches(); gc.collect()");
// Pyodide lists the image's packages as loaded by an unknown source; that JS map cannot go in a snapshot.
for (const name of Object.keys(py.loadedPackages)) delete py.loadedPackages[name];
const snapshot = py.makeMemorySnapshot();
writeFileSync(join(extDir, "python", "snapshot.bin"), snapshot);
console.log(JSON.stringify({ ...layout, jspi: py._module.jspiSupported, memoryBytes: py._module.HEAP8.length, bytes: snapshot.length }));
