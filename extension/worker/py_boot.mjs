// Boots Pyodide with the core, from the extension's own files. Shared by the Python worker, the build's
// snapshot step (Node) and the Node test runners, so every one of them boots Python the same way.
//
// Two ways to reach a Python with `core.runtime.bridge` imported:
// - restore: a memory snapshot made at build time (python/snapshot.bin) is copied into a fresh runtime;
// - full boot: CPython starts and imports pydantic and the core (what the snapshot was made from).
// Both start from the same file system: the site-packages image (python/site-packages.img) is written in a
// preRun, and pydantic_core's wasm library is linked there too, before the runtime initialises, so its
// memory and table bases are the same in the build and in every browser. That is what lets a snapshot
// that holds an imported native module be restored (Pyodide's own loadPackage links libraries later, at
// addresses the snapshot cannot know, and leaves JS references it cannot save).
import { loadPyodide } from "../pyodide/pyodide.mjs";
import createPyodideModule from "../pyodide/pyodide.asm.mjs";

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const IMAGE_MAGIC = "TGSITE01";

export class SnapshotRefused extends Error {}

// The image: "TGSITE01", u32 LE header length, header JSON {files: [[path, size], ...]}, then the bytes.
export function readSiteImage(bytes) {
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== IMAGE_MAGIC) throw new Error(`site-packages image: bad magic ${JSON.stringify(magic)}`);
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)));
  let offset = 12 + headerLength;
  const files = header.files.map(([path, size]) => {
    const data = bytes.subarray(offset, offset + size);
    offset += size;
    return { path, data };
  });
  if (offset !== bytes.length) throw new Error("site-packages image: size does not match its header");
  return files;
}

// Compiling the libraries is the slow part of linking them; it runs while the runtime's own wasm compiles.
export function compileLibraries(files) {
  return Promise.all(
    files.filter((f) => f.path.endsWith(".so")).map(async (f) => ({ path: f.path, module: await WebAssembly.compile(f.data) })),
  );
}

// What the runtime looks like just after the libraries are linked; a snapshot fits only a runtime that
// matches it exactly (same table slots, same memory addresses).
function layoutOf(Module) {
  return { tableLength: Module.wasmTable.length, heapBase: Module.getMemory(0) };
}

// CPython's call trampoline: engines with wasm GC (Chrome) add it to the table at start-up and store its slot
// in _PyRuntime; engines without it (Node 20) store 0 and call through JS instead.
function trampolineAddress(Module) {
  return (Module.__PyRuntime + Module.HEAP32[Module.__PyEM_EMSCRIPTEN_TRAMPOLINE_OFFSET >>> 2]) >>> 2;
}

// Links the site-packages into a runtime that has not initialised yet. Synchronous: a throw here rejects
// the runtime's start instead of leaving it waiting.
function linkSite(Module, { files, libraries, snapshotMeta, making, engine }) {
  engine.trampoline = Module.HEAP32[trampolineAddress(Module)];
  // A snapshot made where the trampoline is missing keeps its slot free, so the libraries sit at the same
  // table index in every engine; an engine without it leaves that slot empty.
  if (making && engine.trampoline === 0) Module.wasmTable.grow(1);
  if (snapshotMeta && Module.wasmTable.length < snapshotMeta.before.tableLength) {
    Module.wasmTable.grow(snapshotMeta.before.tableLength - Module.wasmTable.length);
  }
  if (snapshotMeta && snapshotMeta.jspi !== Module.jspiSupported) {
    // The interpreter caches at start-up whether it can suspend into JS (run_sync, asyncio.run).
    throw new SnapshotRefused(`the snapshot was made ${snapshotMeta.jspi ? "with" : "without"} JS promise integration, this engine has ${Module.jspiSupported ? "it" : "none"}`);
  }
  const before = layoutOf(Module);
  if (snapshotMeta && before.tableLength !== snapshotMeta.before.tableLength) {
    throw new SnapshotRefused(`wasm table has ${before.tableLength} entries, the snapshot expects ${snapshotMeta.before.tableLength}`);
  }
  for (const { path, data } of files) {
    const full = `${SITE_PACKAGES}/${path}`;
    Module.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    Module.FS.writeFile(full, data);
  }
  for (const { path, module } of libraries) {
    const name = `${SITE_PACKAGES}/${path}`;
    // Registered by name, so CPython's dlopen of this path finds it linked (extension modules are local).
    const dso = Module.newDSO(name, undefined, "loading");
    dso.global = false;
    dso.exports = Module.loadWebAssemblyModule(module, { global: false, nodelete: true, loadAsync: false, allowUndefined: true }, name, {}, undefined);
  }
  const after = layoutOf(Module);
  if (snapshotMeta && (after.tableLength !== snapshotMeta.after.tableLength || after.heapBase !== snapshotMeta.after.heapBase)) {
    throw new SnapshotRefused(`linked libraries at table ${after.tableLength}/heap ${after.heapBase}, the snapshot expects ${snapshotMeta.after.tableLength}/${snapshotMeta.after.heapBase}`);
  }
  return { before, after };
}

// The snapshot's heap: the pages it lists are copied in; every other page must be zero. Pages of a freshly
// grown heap are, and reading them keeps them unallocated, so only pages start-up wrote to get cleared.
function writeHeap(Module, data, { pageBytes, pages, memoryBytes }) {
  if (data.length !== pages.length * pageBytes) throw new SnapshotRefused("snapshot pages do not match its page list");
  const bytes = Module.HEAPU8;
  const words = Module.HEAPU32;
  let next = 0;
  for (let start = 0; start < memoryBytes; start += pageBytes) {
    if (pages[next] === start / pageBytes) {
      bytes.set(data.subarray(next * pageBytes, (next + 1) * pageBytes), start);
      next++;
    } else {
      for (let i = start >>> 2, end = (start + pageBytes) >>> 2; i < end; i++) {
        if (words[i] !== 0) {
          bytes.fill(0, start, start + pageBytes);
          break;
        }
      }
    }
  }
}

// Starts a runtime whose preRun waits for `inputs` (a Promise of {files, libraries, snapshot?}), so the
// runtime's own download and compile overlap with fetching, checking and compiling ours.
// `onPhase(name)` hears "runtime" (Pyodide's wasm is instantiated), "linked" (our inputs are in), "heap" (a
// snapshot's heap is written) and "bootstrapped" (Pyodide's own set-up after it is done).
function start(indexURL, inputs, { snapshotMeta = null, making = false, onLayout = null, engine = {}, onPhase = () => {} }) {
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const preRun = (Module) => {
    onPhase("runtime");
    Module.addRunDependency("tabgate-site");
    inputs
      .then(({ files, libraries, snapshot }) => {
        const layout = linkSite(Module, { files, libraries, snapshotMeta, making, engine });
        onLayout?.(layout);
        if (snapshot) {
          Module.growMemory(snapshotMeta.memoryBytes);
          // Pyodide reads the header (build id, JS references); the heap pages are ours to write. Used once,
          // then let go: the worker keeps no second copy of the heap.
          const restore = Module.API.restoreSnapshot;
          Module.API.restoreSnapshot = () => {
            Module.API.restoreSnapshot = restore;
            const state = restore(snapshot.subarray(0, snapshotMeta.headerBytes));
            writeHeap(Module, snapshot.subarray(snapshotMeta.headerBytes), snapshotMeta);
            onPhase("heap");
            return state;
          };
        }
        onPhase("linked");
        Module.removeRunDependency("tabgate-site");
      })
      .catch(fail);
  };
  const pyodide = loadPyodide({
    indexURL,
    packageBaseUrl: indexURL,
    lockFileURL: indexURL + "pyodide-lock.json",
    convertNullToNone: true, // a JS null from the service worker is Python's None, as JSON made it
    createPyodideModule: (settings) => {
      settings.preRun = [...settings.preRun, preRun];
      return createPyodideModule(settings);
    },
    // The real snapshot arrives in the preRun; this placeholder only tells Pyodide to restore one.
    ...(snapshotMeta ? { _loadSnapshot: new Uint8Array(16) } : {}),
    ...(making ? { _makeSnapshot: true } : {}),
  });
  return Promise.race([pyodide, failed]);
}

// After a restore the interpreter carries the build machine's state: re-seed what must differ per run.
// (time.localtime() asks the engine each call; only time.timezone/tzname keep the build's values.)
const AFTER_RESTORE = `
import sys
if "random" in sys.modules:
    sys.modules["random"].seed()
`;

export async function restorePython({ indexURL, inputs, snapshotMeta, onPhase = () => {} }) {
  const engine = {};
  const py = await start(indexURL, inputs, { snapshotMeta, engine, onPhase });
  onPhase("bootstrapped");
  // The snapshot holds the build engine's trampoline slot; this engine's own one goes back in.
  py._module.HEAP32[trampolineAddress(py._module)] = engine.trampoline;
  py.runPython(AFTER_RESTORE);
  return py;
}

export async function bootPython({ indexURL, inputs, makeSnapshot = false, onLayout = null }) {
  const py = await start(indexURL, inputs, { making: makeSnapshot, onLayout });
  py.runPython("import core.runtime.bridge");
  return py;
}
