// Build step (Node): boots the staged extension's Python exactly as the worker's full boot does, imports the
// core, and saves a memory snapshot of that interpreter with the layout it must be restored into.
// Usage: node tools/make_snapshot.mjs <staged extension dir>   (writes python/snapshot.bin, prints JSON)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [extDir] = process.argv.slice(2);
const { bootPython, compileLibraries, readSiteImage } = await import(pathToFileURL(join(extDir, "worker", "py_boot.mjs")).href);

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
// Pyodide's snapshot is its header, then the whole heap; about half of the heap's pages are zero, and a fresh
// heap is zero already, so only the other pages ship (py_boot.mjs writes them back, and zeroes the rest).
const headerBytes = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4)[1];
const heap = snapshot.subarray(headerBytes);
const pageBytes = 65536;
const pages = [];
for (let page = 0; page * pageBytes < heap.length; page++) {
  if (heap.subarray(page * pageBytes, (page + 1) * pageBytes).some((b) => b !== 0)) pages.push(page);
}
const out = new Uint8Array(headerBytes + pages.length * pageBytes);
out.set(snapshot.subarray(0, headerBytes));
pages.forEach((page, i) => out.set(heap.subarray(page * pageBytes, (page + 1) * pageBytes), headerBytes + i * pageBytes));
writeFileSync(join(extDir, "python", "snapshot.bin"), out);
const meta = { headerBytes, pageBytes, pages, memoryBytes: heap.length, bytes: out.length };
console.log(JSON.stringify({ ...layout, jspi: py._module.jspiSupported, ...meta }));
