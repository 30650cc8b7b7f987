// The runner's methods, declared once. Every runner provides each (the native addon through
// lib/runners/native.js, the Node runner through lib/runners/node.js); lib/runners/select.js
// forwards each to the runner it chose; `__test__/packaging/runner-methods.test.mjs` holds the addon
// (`binding`: a napi export of that name in binding.d.ts), the WebAssembly build (`wasm`: what it
// carries, src/wasm.rs) and index.d.ts's Runner to this list. Limits are LIMIT_NAMES (limits.js).

/** `{ [name]: { binding, wasm, optional } }`; `optional`: the glue works without it (a custom runner may lack it). */
const RUNNER_METHODS = Object.freeze({
  runCommand: { binding: true, wasm: true, optional: false },
  diagnose: { binding: true, wasm: true, optional: false },
  releaseFullOutputs: { binding: true, wasm: true, optional: false },
  scanSource: { binding: true, wasm: true, optional: true },
  changedSource: { binding: true, wasm: true, optional: true },
  outlineSource: { binding: true, wasm: true, optional: true },
  copyIndex: { binding: true, wasm: true, optional: true },
  runGit: { binding: true, wasm: true, optional: true },
  setPackageCli: { binding: true, wasm: true, optional: true },
  stopWarm: { binding: true, wasm: false, optional: true },
  warmServers: { binding: true, wasm: false, optional: true },
  watchChanges: { binding: true, wasm: false, optional: true },
  unwatchChanges: { binding: true, wasm: false, optional: true },
  runnerInfo: { binding: false, wasm: false, optional: true },
});

/**
 * What else the WebAssembly build exports, for the Node runner's host side (src/host_child.rs,
 * src/host_threads.rs): its threads, the host it asks to start a child and answer a check, the
 * child it feeds, and a CLI's descendants outside its group.
 */
const WASM_HOST_EXPORTS = Object.freeze([
  "HostChild",
  "CheckReply",
  "setHost",
  "hostReady",
  "startCoreThreads",
  "straysOf",
]);

/**
 * And the check it answers in the Node runner's worker (src/host_answers.rs): a check as JSON, then
 * the host's answers (`ask`, and `{ pid, platform, arch }`).
 */
const WASM_WORKER_CHECKS = Object.freeze(["answerCheck"]);

/** The method names, in the list's order. */
const RUNNER_METHOD_NAMES = Object.freeze(Object.keys(RUNNER_METHODS));

/** `runner[name]` called on the runner when it has one, else undefined (an optional method a custom runner may lack). */
function methodOf(runner, name) {
  return typeof runner?.[name] === "function" ? (...args) => runner[name](...args) : undefined;
}

module.exports = { RUNNER_METHODS, RUNNER_METHOD_NAMES, WASM_HOST_EXPORTS, WASM_WORKER_CHECKS, methodOf };
