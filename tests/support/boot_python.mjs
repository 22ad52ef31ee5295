// Boots the built extension's Python under Node the way its worker does (py_boot.mjs, build-info.json,
// sha256 checks): restored from the memory snapshot, or with TABGATE_BOOT=full by a full boot.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export async function bootExtensionPython(extDir, { full = process.env.TABGATE_BOOT === "full" } = {}) {
  const { bootPython, compileLibraries, readSiteImage, restorePython } = await import(pathToFileURL(join(extDir, "worker", "py_boot.mjs")).href);
  const info = JSON.parse(readFileSync(join(extDir, "build-info.json"), "utf8"));
  const verified = (entry) => {
    const bytes = new Uint8Array(readFileSync(join(extDir, entry.file)));
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (digest !== entry.sha256) throw new Error(`${entry.file}: sha256 ${digest} is not the built ${entry.sha256}`);
    return bytes;
  };
  const files = readSiteImage(verified(info.python.siteImage));
  const site = compileLibraries(files).then((libraries) => ({ files, libraries }));
  const indexURL = join(extDir, "pyodide") + "/";
  if (full) return bootPython({ indexURL, inputs: site });
  const snapshot = verified(info.python.snapshot);
  return restorePython({ indexURL, inputs: site.then((s) => ({ ...s, snapshot })), snapshotMeta: info.python.snapshot });
}
