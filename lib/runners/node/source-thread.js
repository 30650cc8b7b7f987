// The host's side of the Node runner's core workers (source-worker.js, where the core runs as
// WebAssembly): `scanSource(cwd, scan, signal?)`, `changedSource(cwd, walk)`,
// `outlineSource(cwd, outline, signal?)` and `copyIndex(cwd, copy, signal?)` with the addon's
// shapes, and a call's checks (`coreCheck`, asked by the core: node/child.js), run off the host's
// thread. Two workers, one per lane: a call's checks never queue behind a source call, which may take up to its deadline. Each
// is started on first use and kept (unreferenced while idle, so it never holds a process open).
// Each request honours its own deadline inside the worker; should the worker not answer within
// that deadline and a grace (a regular expression that backtracks for seconds, a read stuck on a
// hung mount), it is terminated, every request it held settles as stopped at its deadline with
// nothing found, and the next request starts a new one. An aborted signal sets the request's
// shared cancel flag: the worker ends it at its next file.

const path = require("node:path");
const { outlineDeadline } = require("../../contract/source-outline.js");
const { coded, outlined } = require("../core-results.js");
const { MAX_WRITE_TIMEOUT_MS } = require("../../contract/limits.js");
const { fromUtf8, wellFormed } = require("./wasm-core.js");
const { Problem } = require("../../contract/problems.js");
const { WASM_WORKER_CHECKS } = require("../../contract/runner-methods.js");

/** How long past a request's own deadline the worker may take to answer before it is ended. */
const GRACE_MS = 1000;
/** And a new worker, which compiles the WebAssembly core before its first answer, this much more. */
const LOAD_GRACE_MS = 10000;

/** The workers, one per lane: the checks before a run never queue behind a scan, a walk or a copy. */
const workers = new Map(); // lane → Worker
let nextId = 1;
const pending = new Map(); // id → { settle, timer, own: the worker that holds it }
const CHECK_OPS = new Set(WASM_WORKER_CHECKS);
/** The lane a request runs in: the checks (short, before every run; `load` readies it), or the source calls. */
const laneOf = (op) => (op === "load" || CHECK_OPS.has(op) ? "checks" : "source");

/** Settles every request `own` held with `outcome` (it was ended, or failed). */
function settleAll(own, outcome) {
  for (const [id, entry] of pending) {
    if (entry.own !== own) continue;
    clearTimeout(entry.timer);
    pending.delete(id);
    entry.settle(outcome);
  }
}

/** Ends `own`, the worker of `lane`, with every request it held. */
function ended(lane, own, outcome) {
  if (workers.get(lane) === own) workers.delete(lane);
  settleAll(own, outcome);
}

function started(lane) {
  const running = workers.get(lane);
  if (running) return running;
  const { Worker } = require("node:worker_threads");
  const own = new Worker(path.join(__dirname, "source-worker.js"));
  own.unref();
  own.on("message", ({ id, value, error }) => {
    own.answered = true;
    const entry = pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    pending.delete(id);
    entry.settle(error ? { error } : { value });
    if (![...pending.values()].some((e) => e.own === own)) own.unref();
  });
  // An error (it could not start: no descriptors or memory left) or an exit: every request it held is lost.
  own.on("error", (failure) => ended(lane, own, { lost: true, failure }));
  own.on("exit", () => ended(lane, own, { lost: true, failure: null }));
  workers.set(lane, own);
  return own;
}

/** What a request answers when the worker had to be ended (`why`: its deadline passed, or cancelled): nothing found. */
const EMPTY = {
  scanSource: (why) => ({
    matches: [],
    filesScanned: 0,
    bytesScanned: 0,
    filesTooLarge: 0,
    ignoreFilesCut: 0,
    stopped: why,
  }),
  changedSource: (why) => ({ paths: [], changed: 0, filesSeen: 0, ignoreFilesCut: 0, stopped: why }),
  outlineSource: (why) => ({ files: [], cut: { reason: why } }),
  copyIndex: (why) => ({ files: [], bytes: 0, refused: { is: "stopped", why } }),
  // A check the worker was ended in (its caller stopped waiting at the same deadline), or that
  // was lost with a worker that failed (`failure`: why): coreChecked (below) says which.
  ...Object.fromEntries(
    ["load", ...WASM_WORKER_CHECKS].map((op) => [op, (why, failure) => ({ stopped: why, failure })]),
  ),
};

function request(op, cwd, body, signal) {
  // WASI has no working directory: the core is given the directory as an absolute path; every
  // string well-formed (wasm-core.js wellFormed).
  const message = { op, cwd: path.resolve(String(cwd)).toWellFormed(), request: wellFormed(body) };
  return posted(message, Number(body?.deadlineMs) || 0, signal);
}

/** `message` to the worker, answered within `deadlineMs` and a grace, or settled as stopped. */
function posted(message, deadlineMs, signal) {
  const { op } = message;
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const onAbort = () => Atomics.store(cancel, 0, 1);
    if (signal?.aborted) onAbort();
    signal?.addEventListener?.("abort", onAbort, { once: true });
    const settle = ({ value, error, lost, failure }) => {
      signal?.removeEventListener?.("abort", onAbort);
      if (error?.facts)
        reject(new Problem(error.code, error.facts)); // the core could not load (wasm-core.js)
      else if (error) reject(coded(Object.assign(new Error(error.message), error.code ? { code: error.code } : {})));
      else if (lost) resolve(EMPTY[op](Atomics.load(cancel, 0) ? "cancelled" : "deadline", failure ?? undefined));
      else resolve(value);
    };
    const lane = laneOf(op);
    const own = started(lane);
    const timer = setTimeout(
      () => {
        // The worker did not answer in time: ended, with every request it held.
        ended(lane, own, { lost: true });
        own.terminate().catch(() => {});
      },
      deadlineMs + GRACE_MS + (own.answered ? 0 : LOAD_GRACE_MS),
    );
    pending.set(id, { settle, timer, own });
    own.ref();
    own.postMessage({ id, ...message, cancel: cancel.buffer });
  });
}

/** One of the core's checks in the worker, with `args` (well-formed), given up on after `deadlineMs` and a grace. */
const coreCheck = (op, args, deadlineMs) => posted({ op, args: wellFormed(args) }, deadlineMs, null);

/** A child's environment from the core's names and values (alternating, UTF-8). */
function childEnvOf(pairs) {
  const env = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) env[fromUtf8(pairs[i])] = fromUtf8(pairs[i + 1]);
  return env;
}

/**
 * The checks' worker with its core loaded (started and its WebAssembly compiled, once per worker):
 * at once when it has answered before, else once it answers `load` (within the load's grace).
 */
const checksLoaded = () => (checksReady() ? Promise.resolve(true) : posted({ op: "load" }, 0, null));
/** Whether the checks' worker is running and has answered (its core loaded). */
const checksReady = () => workers.get("checks")?.answered === true;

/** The core's source scan, in the worker. */
const scanSource = (cwd, scan, signal) => request("scanSource", cwd, scan, signal ?? null);
/** The core's changed-files walk, in the worker. */
const changedSource = (cwd, walk) => request("changedSource", cwd, walk, null);
/** The core's outline of source files, in the worker; its deadline made explicit. */
const outlineSource = async (cwd, outline, signal) =>
  outlined(await request("outlineSource", cwd, { ...outline, deadlineMs: outlineDeadline(outline) }, signal ?? null));

/** The core's copy of another worktree's index, in the worker (its deadline: an index write's longest, unless asked). */
const copyIndex = (cwd, copy, signal) =>
  request("copyIndex", cwd, { ...copy, deadlineMs: copy?.deadlineMs ?? MAX_WRITE_TIMEOUT_MS }, signal ?? null);

module.exports = {
  changedSource,
  checksLoaded,
  childEnvOf,
  copyIndex,
  coreCheck,
  outlineSource,
  scanSource,
};
