// The Node runner's source worker: a worker thread that runs the core's source scan, changed-files
// walk and outline, so that no read of repository files, no ignore pattern and no regular
// expression over its lines ever runs on the host's thread (Pi's event loop). The core is the
// same Rust as the native addon's (crates/core), built for WebAssembly (wasm32-wasip1-threads,
// `npm run build:wasm` into wasm/) and loaded here through napi-rs's WASI loader. One request at a
// time, in order; each message `{ id, op, cwd, request, cancel }` is answered `{ id, value }` or
// `{ id, error: { message, code } }`. source-thread.js drives it.

const { parentPort } = require("node:worker_threads");
const { WASM_CORE_FIX, WASM_LOADER, withoutWasiNotice } = require("./wasm-core.js");

// Node says once per thread that WASI is experimental; not on Pi's terminal.
process.emitWarning = withoutWasiNotice(process.emitWarning);

let core = null;
/** The WebAssembly core, loaded on the first request; a failure is the request's coded error. */
function loaded() {
  if (core) return core;
  try {
    core = require(WASM_LOADER);
  } catch (err) {
    const problem = new Error(
      `CODEGRAPH_ADDON: the WebAssembly core (${WASM_LOADER}) could not be loaded: ` +
        `${String(err?.message ?? err).split("\n")[0]}. Fix: ${WASM_CORE_FIX}.`,
    );
    throw Object.assign(problem, { code: "CODEGRAPH_ADDON" });
  }
  return core;
}

parentPort.on("message", ({ id, op, cwd, request, cancel }) => {
  const flag = cancel ? new Int32Array(cancel) : null;
  const stopped = () => (flag ? Atomics.load(flag, 0) !== 0 : false);
  try {
    // The walk for changed files takes no `stopped` (its own deadline bounds it); it ignores it.
    const value = loaded()[op](cwd, request, stopped);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err?.message ?? err), code: err?.code } });
  }
});
