// The CLI's version (crates/core/src/version.rs): diagnostics only, never used to refuse a call, and never
// allowed to delay an answer. For CodeGraph's npm launcher it is read from the package's own
// package.json (no process starts); otherwise `codegraph --version` runs in the background,
// bounded by the calling explore's deadline, and is stopped when that call fails. Answers are
// cached per executable that runs; concurrent first calls share one probe.

const { VERSION_TIMEOUT_MS } = require("../../contract/limits.js");
const { run } = require("./child.js");

/** executable that runs → { known: true, value } or { known: false, pending, cancel } */
const versionCache = new Map();

/** What actually runs: the bundle's launcher, or the executable itself. */
const launchRuns = (launch) => launch.bundle?.launcher ?? launch.executable;

/**
 * Starts finding the version of `launch`: at once from package metadata (`launch.packageVersion`,
 * read by the core's checks) or the cache, else a background `--version` run
 * that ends by `deadline` (a performance.now() time) at the latest. Returns `{ now(),
 * within(ms), stop() }`; versions are `{ text, source }` or null.
 */
function startVersionProbe(launch, cwd, env, deadline) {
  const key = launchRuns(launch);
  if (!versionCache.has(key)) {
    const text = launch.packageVersion;
    if (text) versionCache.set(key, { known: true, value: { text, source: "package.json" } });
    else versionCache.set(key, probeEntry(key, launch, cwd, env, deadline));
  }
  const entry = versionCache.get(key);
  const now = () => {
    const e = versionCache.get(key);
    return e?.known ? e.value : null;
  };
  return {
    now,
    async within(ms) {
      if (!entry.known) {
        let timer;
        await Promise.race([entry.pending, new Promise((r) => (timer = setTimeout(r, ms)))]);
        clearTimeout(timer);
      }
      return now();
    },
    /** The call failed, timed out or was cancelled: its probe must not outlive it. */
    stop() {
      if (entry.known) return;
      entry.cancel.requested = true;
      entry.cancel.onCancel?.();
    },
  };
}

function probeEntry(key, launch, cwd, env, deadline) {
  const full = performance.now() + VERSION_TIMEOUT_MS;
  const bound = Math.min(deadline, full);
  const cancel = { requested: false, onCancel: null };
  const entry = { known: false, cancel };
  const spec = { launch, args: ["--version"], cwd, env, timeoutMs: VERSION_TIMEOUT_MS, deadline: bound, cancel };
  entry.pending = run({ ...spec, background: true }).then(
    (out) => {
      const first = out.stdout.text.split("\n")[0].trim();
      const value =
        out.status.code === 0 && first ? { text: [...first].slice(0, 64).join(""), source: "--version" } : null;
      versionCache.set(key, { known: true, value });
    },
    (problem) => {
      // Cut short by the caller's deadline or a cancel: nothing cached, a later call tries again.
      // One that had its full time and did not answer is cached as unknown; so is a failed start.
      const cutShort =
        problem?.code === "CODEGRAPH_CANCELLED" || (problem?.code === "CODEGRAPH_TIMEOUT" && bound < full);
      if (cutShort) versionCache.delete(key);
      else versionCache.set(key, { known: true, value: null });
    },
  );
  return entry;
}

module.exports = { launchRuns, startVersionProbe };
