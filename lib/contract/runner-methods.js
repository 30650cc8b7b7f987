// The runner's methods, declared once. Every runner provides each (the native addon through
// lib/runners/native.js, the Node runner through lib/runners/node.js); lib/runners/select.js
// forwards each to the runner it chose; `__test__/packaging/runner-methods.test.mjs` holds the addon
// (`binding`: a napi export of that name in binding.d.ts), the WebAssembly build (`wasm`: what it
// carries, src/wasm.rs) and index.d.ts's Runner to this list. Limits are LIMIT_NAMES (limits.js).

/** `{ [name]: { binding, wasm, optional } }`; `optional`: the glue works without it (a custom runner may lack it). */
const RUNNER_METHODS = Object.freeze({
  runCommand: { binding: true, wasm: false, optional: false },
  diagnose: { binding: true, wasm: false, optional: false },
  releaseFullOutputs: { binding: true, wasm: true, optional: false },
  scanSource: { binding: true, wasm: true, optional: true },
  changedSource: { binding: true, wasm: true, optional: true },
  outlineSource: { binding: true, wasm: true, optional: true },
  copyIndex: { binding: true, wasm: true, optional: true },
  runGit: { binding: true, wasm: true, optional: true },
  setPackageCli: { binding: true, wasm: false, optional: true },
  stopWarm: { binding: true, wasm: false, optional: true },
  warmServers: { binding: true, wasm: false, optional: true },
  watchChanges: { binding: true, wasm: false, optional: true },
  unwatchChanges: { binding: true, wasm: false, optional: true },
  runnerInfo: { binding: false, wasm: false, optional: true },
});

/**
 * What else the WebAssembly build exports, for the Node runner's host side: the child the core runs
 * once JavaScript started it (src/host_child.rs), a call's and a git description's reading, what
 * their exits mean, and a CLI's descendants outside its group (src/call.rs).
 */
const WASM_HOST_EXPORTS = Object.freeze([
  ...["HostChild", "CheckReply", "setHost", "startCoreThreads", "readCall", "saysCannotOpen", "exitProblem"],
  "straysOf",
]);

/**
 * And the checks it runs in the Node runner's worker (src/checks.rs, src/survey.rs): each takes
 * its arguments, then the host's answers (`ask`, and `{ pid, platform, arch }`).
 */
const WASM_WORKER_CHECKS = Object.freeze(["runChecks", "writerNow", "blockedCause", "surveyWorkspace", "answerCheck"]);

/** The method names, in the list's order. */
const RUNNER_METHOD_NAMES = Object.freeze(Object.keys(RUNNER_METHODS));

/** `runner[name]` called on the runner when it has one, else undefined (an optional method a custom runner may lack). */
function methodOf(runner, name) {
  return typeof runner?.[name] === "function" ? (...args) => runner[name](...args) : undefined;
}

module.exports = { RUNNER_METHODS, RUNNER_METHOD_NAMES, WASM_HOST_EXPORTS, WASM_WORKER_CHECKS, methodOf };
