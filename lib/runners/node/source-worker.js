// The Node runner's core worker: a worker thread that runs the WebAssembly core's calls that touch
// the filesystem (the source scan, the changed-files walk, the outline, the index copy, and a
// call's checks, which the core on the host's thread asks it: `answerCheck`), so that no read of repository files, no ignore pattern, no
// regular expression over its lines and no stat on a hung mount ever runs on the host's thread
// (Pi's event loop). The core is the same Rust as the native addon's (crates/core), built for
// WebAssembly (wasm32-wasip1-threads, `npm run build:wasm` into wasm/) and loaded here through
// napi-rs's WASI loader. One request at a time, in order; each message `{ id, op, cwd, request,
// cancel }` (a check: `{ id, op: "answerCheck", args }`) is answered `{ id, value }` or
// `{ id, error: { message, code, facts } }` (facts: a Problem, the core not loaded). source-thread.js
// drives it.

const fs = require("node:fs");
const { parentPort } = require("node:worker_threads");
const { hostCore } = require("./wasm-core.js");
const { WASM_WORKER_CHECKS } = require("../../contract/runner-methods.js");

/** What a file is beyond WASI's kinds (crates/core/src/host.rs `Special`). */
const kindOf = (s) =>
  s.isFIFO()
    ? "fifo"
    : s.isCharacterDevice()
      ? "char"
      : s.isBlockDevice()
        ? "block"
        : s.isSocket()
          ? "socket"
          : "other";

/** An OS error as the core reads it back: `!CODE message`. */
const failed = (err) => `!${err?.code ?? "EIO"} ${String(err?.message ?? err)}`;

/**
 * The host's answers the core asks for what WASI cannot tell (crates/core/src/host.rs, src/checks.rs):
 * `stat`/`lstat` → "dev ino nlink uid mode kind", `access<mode>` → "", `open`/`openNoLink` →
 * "regular" or "special", `mkdir700` and `chmod700` → "", `signal0` (the path is a pid) →
 * "delivered", "not-permitted" or "no-such-process"; an OS error as `!CODE message`.
 */
function ask(question, target) {
  try {
    if (question === "stat" || question === "lstat") {
      const s = (question === "stat" ? fs.statSync : fs.lstatSync)(target, { bigint: true });
      return `${s.dev} ${s.ino} ${s.nlink} ${s.uid} ${s.mode} ${kindOf(s)}`;
    }
    if (question.startsWith("access")) {
      fs.accessSync(target, Number(question.slice("access".length)));
      return "";
    }
    if (question === "open" || question === "openNoLink") {
      // As the native build opens a file (crates/core/src/files.rs): a FIFO never blocks the open.
      const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = fs.constants;
      const flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (question === "openNoLink" ? O_NOFOLLOW : 0);
      const fd = fs.openSync(target, flags);
      try {
        return fs.fstatSync(fd).isFile() ? "regular" : "special";
      } finally {
        fs.closeSync(fd);
      }
    }
    if (question === "mkdir700") {
      fs.mkdirSync(target, { mode: 0o700 });
      return "";
    }
    if (question === "chmod700") {
      fs.chmodSync(target, 0o700);
      return "";
    }
    if (question === "signal0") {
      process.kill(Number(target), 0);
      return "delivered";
    }
  } catch (err) {
    if (question === "signal0") return err?.code === "ESRCH" ? "no-such-process" : "not-permitted";
    return failed(err);
  }
  return failed({ code: "EINVAL", message: `no such question: ${question}` });
}

/**
 * `value` with each byte array copied out of the core's memory: a Buffer the core returns is a
 * view of its WebAssembly memory, a SharedArrayBuffer that a posted message shares instead of
 * copying, and the host would read it after the core reused it.
 */
function copiedOut(value) {
  if (ArrayBuffer.isView(value)) return Buffer.from(value);
  if (Array.isArray(value)) return value.map(copiedOut);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, copiedOut(v)]));
}

/** This process, as the core's checks ask it. */
const HOST = { pid: process.pid, uid: process.getuid?.(), platform: process.platform, arch: process.arch };

/** The checks' calls (src/checks.rs, src/survey.rs): their arguments, then the host's answers. */
const CHECKS = new Set(WASM_WORKER_CHECKS);

parentPort.on("message", ({ id, op, cwd, request, args, cancel }) => {
  const flag = cancel ? new Int32Array(cancel) : null;
  const stopped = () => (flag ? Atomics.load(flag, 0) !== 0 : false);
  try {
    // The core as the host's thread loads it (its failure the same Problem); the walk for changed
    // files takes no `stopped` (its own deadline bounds it) and ignores it.
    const core = hostCore();
    // `load` only readies the core (its WebAssembly compiled): lib/runners/node/source-thread.js checksLoaded.
    const value =
      op === "load" ? true : CHECKS.has(op) ? copiedOut(core[op](...args, ask, HOST)) : core[op](cwd, request, stopped);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err?.message ?? err), code: err?.code, facts: err?.facts } });
  }
});
