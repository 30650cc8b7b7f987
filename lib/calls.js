// The glue's calls into a backend (the native addon or the Node runner, both shaped like the
// addon's module): argument-robust run() of any command description (lib/commands.js), explore()
// as one such description, and a diagnose() that never rejects. Whatever the backend, run() and
// explore() never throw synchronously and every failure is a CODEGRAPH_* rejection.

const { finishAnswer } = require("./answer.js");
const { exhausted } = require("./backends/node/errors.js");
const { exploreCommand } = require("./commands.js");
const { firstLine } = require("./text.js");
const { withWordedDropped } = require("./words/environment.js");
const { publicError } = require("./words/messages.js");

/** The limits every backend exports, as the addon's napi consts. */
const LIMIT_NAMES = [
  "MAX_REQUEST_CHARS",
  "MAX_OUTPUT_BYTES",
  "MAX_OUTPUT_LINES",
  "DRAIN_LIMIT_BYTES",
  "STDERR_TAIL_BYTES",
  "DEFAULT_TIMEOUT_MS",
];

/**
 * A progress listener that can fail in any way (throw anything, return a rejected promise or a
 * thenable whose `then` throws) without taking the host down.
 */
function safeListener(fn) {
  return (progress) => {
    try {
      const r = fn(progress);
      if (r !== null && (typeof r === "object" || typeof r === "function")) Promise.resolve(r).catch(() => {});
    } catch {}
  };
}

/** The options a backend reads, copied out of whatever the caller passed (getters, Proxies). */
function plainOptions(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== "object") return options; // the backend rejects it with its own reason
  const { timeoutMs, onProgress } = options;
  return { timeoutMs, onProgress: typeof onProgress === "function" ? safeListener(onProgress) : onProgress };
}

/** `{ run, explore, diagnose, releaseFullOutputs, limits }` over `backend`. See index.d.ts. */
function wrapBackend(backend) {
  /** Runs the described command in `cwd`; every failure is a CODEGRAPH_* rejection. */
  async function run(command, cwd, signal, options) {
    let plain;
    try {
      plain = plainOptions(options);
    } catch (cause) {
      throw publicError("CODEGRAPH_INVALID_OPTIONS", { reason: { is: "optionsUnreadable", text: firstLine(cause) } });
    }
    let result;
    try {
      result = await backend.runCommand(command, cwd, signal ?? null, plain);
    } catch (err) {
      if (err?.code?.startsWith?.("CODEGRAPH_")) throw err;
      // Loading a backend can itself run out of descriptors or memory (require, dlopen).
      const resources = exhausted({ is: "loadRunner" }, err);
      if (resources) throw publicError(resources.code, resources.facts);
      throw publicError("CODEGRAPH_INVALID_OPTIONS", { reason: { is: "argumentsUnusable", text: firstLine(err) } });
    }
    return finishAnswer(result);
  }

  /** Runs `codegraph explore -- <request>` in `cwd`: one command description through run(). */
  function explore(request, cwd, signal, options) {
    return run(exploreCommand(request), cwd, signal, options);
  }

  /** Read-only readiness of a workspace (executable, version, index); a failure is a diagnosis too. */
  async function diagnose(cwd) {
    try {
      return withWordedDropped(await backend.diagnose(cwd));
    } catch (err) {
      const story = err?.details?.story;
      return {
        cwd,
        ready: false,
        problemCode: err?.code ?? "CODEGRAPH_SPAWN",
        problem: story ? `${String(err.message).split("\n")[0]} ${story}` : String(err?.message ?? err),
        remediation: err?.remediation ?? "Run `pi-codegraph doctor` in the workspace.",
      };
    }
  }

  /** Deletes the temp files holding full output of truncated answers (the listed ones, or all). */
  function releaseFullOutputs(paths) {
    return backend.releaseFullOutputs(paths ?? null);
  }

  /** The backend's limits, read now (a lazily loaded backend may not know them before). */
  function limits() {
    return Object.fromEntries(LIMIT_NAMES.map((name) => [name, backend[name]]));
  }

  return { run, explore, diagnose, releaseFullOutputs, limits };
}

module.exports = { LIMIT_NAMES, wrapBackend };
