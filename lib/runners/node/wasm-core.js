// Where the Node runner's core is: the Rust core built for WebAssembly (`npm run build:wasm`, into
// wasm/ at the package's root, shipped in the package). source-worker.js loads it in its worker
// for the source calls and a call's checks; hostCore() loads it on the host's thread, where it runs
// each call on threads of its own (node/child.js starts them and answers what it asks).

const fs = require("node:fs");
const path = require("node:path");
const { isProxy } = require("node:util").types;
const { Problem, exhausted } = require("../../contract/problems.js");

const WASM_DIR = path.join(__dirname, "..", "..", "..", "wasm");
/** napi-rs's generated WASI loader (it reads the .wasm beside it). */
const WASM_LOADER = path.join(WASM_DIR, "pi-codegraph.wasi.cjs");
/** The module itself. */
const WASM_FILE = path.join(WASM_DIR, "pi-codegraph.wasm32-wasi.wasm");

/** How to get the WebAssembly core back, said wherever it is missing (the runner's note, a source call's error). */
const WASM_CORE_FIX = "reinstall pi-codegraph, or run `npm run build` in a checkout (it builds wasm/)";

/** The WebAssembly core's file when it is there, else null. */
function wasmCoreFile() {
  return fs.existsSync(WASM_FILE) ? WASM_FILE : null;
}

/**
 * `emitWarning` without Node's one-time notice (per thread) that WASI is experimental: the
 * terminal of the host that loads the core is Pi's.
 */
function withoutWasiNotice(emitWarning) {
  return (warning, ...rest) => {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && String(warning).startsWith("WASI")) return;
    emitWarning.call(process, warning, ...rest);
  };
}

/**
 * Android's WASI root (Termux): no app may open the real `/`, so napi-rs's loader maps the core's
 * `/` to the working directory it reads when loaded, and a path outside that directory (TMPDIR,
 * where a cut answer's full output goes; PREFIX, where the CLI is; another root) does not resolve.
 * The loader is given the deepest directory that holds the working directory, HOME, PREFIX and
 * TMPDIR instead (Termux's `/data/data/com.termux/files`), under which every path resolves as
 * itself. Null elsewhere, and when only `/` holds them all (the loader's own choice then stands).
 */
function androidRoot() {
  if (process.platform !== "android") return null;
  let here;
  try {
    here = process.cwd();
  } catch {
    return null; // the working directory is gone: the loader's own choice
  }
  const dirs = [here, process.env.HOME, process.env.PREFIX, process.env.TMPDIR]
    .filter((d) => typeof d === "string" && path.isAbsolute(d))
    .map((d) => path.resolve(d).split(path.sep));
  let depth = 0;
  while (dirs.every((d) => depth < d.length && d[depth] === dirs[0][depth])) depth += 1;
  return dirs[0].slice(0, depth).join(path.sep) || null;
}

let core = null;
let loadError = null;
/**
 * The WebAssembly core on this thread, loaded on first use (about 50 ms, once, without the WASI
 * notice); a CODEGRAPH_ADDON Problem when it cannot be.
 */
function hostCore() {
  if (core) return core;
  if (!loadError) {
    const { emitWarning, cwd } = process;
    process.emitWarning = withoutWasiNotice(emitWarning);
    const root = androidRoot(); // read by the loader as it loads, and handed to its threads
    if (root) process.cwd = () => root;
    try {
      core = require(WASM_LOADER);
      return core;
    } catch (err) {
      // Out of descriptors, processes or memory for the load: the core is there, and the next
      // call tries again (nothing is decided).
      const resources = exhausted({ is: "loadAddon" }, err);
      if (resources) throw resources;
      loadError = err;
    } finally {
      Object.assign(process, { emitWarning, cwd });
    }
  }
  const story = `${WASM_LOADER}: ${String(loadError?.message ?? loadError).split("\n")[0]}`;
  throw new Problem("CODEGRAPH_ADDON", { target: "wasm32-wasi", story, core: "wasm" });
}

/**
 * `value` (plain data: strings, arrays, objects) with every string well-formed, a lone surrogate
 * as U+FFFD, as V8's own napi hands strings to the native addon: emnapi, which hands them to the
 * WebAssembly core, pairs a lone surrogate with the unit after it instead (`"a\uD800b"` arrived
 * as U+10062). Anything else (a Proxy, an accessor, a hidden field) goes as it is, for the core's
 * reader to read, and code, as the addon's does.
 */
function wellFormed(value) {
  if (typeof value === "string") return value.toWellFormed();
  if (value === null || typeof value !== "object" || isProxy(value)) return value;
  try {
    const isArray = Array.isArray(value);
    if (Object.getPrototypeOf(value) !== (isArray ? Array.prototype : Object.prototype)) return value;
    const fields = Object.entries(Object.getOwnPropertyDescriptors(value));
    for (const [key, field] of fields) {
      if (isArray && key === "length") continue;
      if (!("value" in field) || !field.enumerable) return value; // an accessor, a hidden field
    }
    if (isArray) return value.map(wellFormed);
    return Object.fromEntries(fields.map(([key, field]) => [key, wellFormed(field.value)]));
  } catch {
    return value;
  }
}

/** UTF-8 bytes from the core as a string (undefined and null stay undefined). */
const fromUtf8 = (bytes) => (bytes === undefined || bytes === null ? undefined : Buffer.from(bytes).toString());

module.exports = { WASM_CORE_FIX, WASM_LOADER, fromUtf8, hostCore, wasmCoreFile, wellFormed };
