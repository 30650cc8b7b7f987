// Where the Node runner's core is: the Rust core built for WebAssembly (`npm run build:wasm`, into
// wasm/ at the package's root, shipped in the package). Only source-worker.js loads it.

const fs = require("node:fs");
const path = require("node:path");

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

module.exports = { WASM_CORE_FIX, WASM_LOADER, wasmCoreFile };
