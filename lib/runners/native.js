// The native runner: the pi-codegraph addon, loaded on first use (so a missing binary is a coded
// CODEGRAPH_ADDON error, never a Pi crash), robustly across Node, Bun and Pi's Bun-compiled binary.
//
// napi-rs's generated binding.js finds a published addon with a bare
// require("pi-codegraph-<triple>"), a package whose `main` is a `.node` file. Inside Pi's
// Bun-compiled binary that bare require fails, while a `.node` required by absolute file path
// works. So this loader requires `.node` files by path first and keeps binding.js as the last
// resort (it also honours NAPI_RS_NATIVE_LIBRARY_PATH).

const fs = require("node:fs");
const path = require("node:path");
const { LIMIT_NAMES } = require("../contract/limits.js");
const { Problem, exhausted } = require("../contract/problems.js");
const { coded, outlined } = require("./core-results.js");

const ROOT = path.join(__dirname, "..", "..");

/** "gnu" or "musl" on Linux, null elsewhere. */
function linuxLibc() {
  if (process.platform !== "linux") return null;
  // ldd names its libc; process.report (the fallback) costs milliseconds and lists interfaces.
  try {
    return fs.readFileSync("/usr/bin/ldd", "utf8").includes("musl") ? "musl" : "gnu";
  } catch {}
  try {
    return process.report.getReport().header.glibcVersionRuntime ? "gnu" : "musl";
  } catch {
    return "gnu";
  }
}

/** "<platform>-<arch>", e.g. "win32-x64". */
function base() {
  return `${process.platform}-${process.arch}`;
}

/** The napi-rs target suffix for this machine, e.g. "linux-x64-gnu", "darwin-arm64", "win32-x64-msvc". */
function target() {
  if (process.platform === "linux") return `${base()}-${linuxLibc()}`;
  if (process.platform === "win32") return `${base()}-msvc`;
  return base();
}

function loadNative() {
  const triple = target();
  const file = `pi-codegraph.${triple}.node`;
  const pkg = `pi-codegraph-${triple}`;
  const tried = [];
  const attempt = (label, load) => {
    try {
      return load();
    } catch (err) {
      tried.push(`${label}: ${String(err?.message ?? err).split("\n")[0]}`);
      return null;
    }
  };

  // 1. A dev build (`npm run build`) next to the package root. On Windows also a windows-gnu
  // build (what CI cross-builds and tests under Wine), after the MSVC one.
  const local = path.join(ROOT, file);
  const gnu = process.platform === "win32" ? path.join(ROOT, `pi-codegraph.${base()}-gnu.node`) : null;
  const native =
    attempt(local, () => require(local)) ||
    (gnu && fs.existsSync(gnu) ? attempt(gnu, () => require(gnu)) : null) ||
    // 2. The published platform package, resolved to an absolute FILE path and required by it.
    attempt(pkg, () => {
      const manifest = require.resolve(`${pkg}/package.json`);
      return require(path.join(path.dirname(manifest), require(manifest).main || file));
    }) ||
    // 3. napi-rs's own loader (other layouts, NAPI_RS_NATIVE_LIBRARY_PATH).
    attempt("binding.js", () => require("../../binding.js"));
  if (native) return native;

  const libc = process.platform === "linux" ? ` (${linuxLibc() === "musl" ? "musl" : "glibc"})` : "";
  throw new Error(
    `no pi-codegraph native addon for ${process.platform}-${process.arch}${libc} could be loaded ` +
      `(tried ${tried.join("; ") || "nothing"}). ` +
      `Fix: reinstall pi-codegraph with optional dependencies enabled so that ${pkg} is installed ` +
      `(npm install pi-codegraph, without --omit=optional or --no-optional), or build the addon ` +
      `(npm run build) so that ${file} sits next to its package.json.`,
  );
}

let binding;
let bindingError;
/** The addon, loaded once; a CODEGRAPH_ADDON Problem (the same facts every time) when it cannot be. */
function loadBinding() {
  if (binding) return binding;
  if (!bindingError) {
    try {
      binding = loadNative();
      return binding;
    } catch (cause) {
      // Out of descriptors or memory for the dlopen: the addon is there, and the next call
      // tries again (nothing is decided, no fallback is chosen).
      const resources = exhausted({ is: "loadAddon" }, cause);
      if (resources) throw resources;
      bindingError = cause;
    }
  }
  // The whole story (what was tried) is a fact: lib/api/ words it (one short line for the model,
  // the story in `details.story`, which `pi-codegraph doctor` and `/codegraph` print).
  throw new Problem("CODEGRAPH_ADDON", { target: target(), story: String(bindingError?.message ?? bindingError) });
}

/**
 * Which native binary is loaded (for `pi-codegraph doctor`), or why none could be: the loader's
 * story, or the Problem that kept it from trying (lib/api/failures.js words it).
 */
function addonInfo() {
  try {
    loadBinding();
  } catch (err) {
    return err.facts?.story ? { path: null, error: err.facts.story } : { path: null, error: null, problem: err };
  }
  const loaded = Object.keys(require.cache).find(
    (k) => k.endsWith(".node") && path.basename(k).startsWith("pi-codegraph"),
  );
  return { path: loaded ?? null, error: null };
}

/** The addon's rejection (`code` + `facts` + the run's `details`) as a Problem, nothing more. */
function asProblem(err) {
  if (!err?.facts) throw err; // napi's own failure (the environment going away)
  throw new Problem(err.code, err.facts, err.details ?? {});
}

/** The addon as a runner: the same module shape, loaded when first used. */
const nativeRunner = {
  runCommand: async (command, cwd, signal, options) =>
    loadBinding().runCommand(command, cwd, signal, options).catch(asProblem),
  /** The addon's diagnosis as it is: its problems are facts (`{ code, facts }`), worded by lib/api/. */
  diagnose: async (cwd, workspace) => loadBinding().diagnose(cwd, workspace ?? null),
  /** The bounded source search (src/source_scan.rs); a pattern that does not compile rejects. */
  scanSource: async (cwd, scan, signal) =>
    loadBinding()
      .scanSource(cwd, scan, signal ?? null)
      .catch((err) => {
        throw coded(err);
      }),
  /** The bounded walk for source files written after a moment (src/source_scan.rs). */
  changedSource: async (cwd, walk) => loadBinding().changedSource(cwd, walk),
  /** git as a child (crates/core/src/git_run.rs), with CodeGraph's rules; the core reads the description. */
  runGit: async (command, cwd, signal) =>
    loadBinding()
      .runGit(command, cwd, signal ?? null)
      .catch(asProblem),
  /** The outline of source files (src/source_outline.rs), with null where the addon leaves a value out. */
  outlineSource: async (cwd, request, signal) =>
    outlined(await loadBinding().outlineSource(cwd, request, signal ?? null)),
  /** The copy of another worktree's index into this workspace's (src/index_copy.rs): a refusal is a fact. */
  copyIndex: async (cwd, request, signal) => loadBinding().copyIndex(cwd, request, signal ?? null),
  /** Where the CodeGraph CLI installed beside this package is (src/lib.rs setPackageCli); nothing without an addon. */
  setPackageCli: (file) => {
    try {
      loadBinding().setPackageCli(typeof file === "string" ? file : null);
    } catch {}
  },
  /** Stops every long-lived CodeGraph of this process (crates/core/src/warm.rs); none without an addon. */
  stopWarm: async () => (binding ? binding.stopWarm() : 0),
  /** The long-lived CodeGraphs running now (`[{ cwd, pid }]`). */
  warmServers: () => (binding ? binding.warmServers() : []),
  /** The watch of a large tree's changes while auto sync is on (crates/core/src/change_watch.rs: Linux's inotify). */
  watchChanges: async (cwd, request) => loadBinding().watchChanges(cwd, request),
  /** Ends every watch; none without an addon. */
  unwatchChanges: () => (binding ? binding.unwatchChanges() : 0),
  /** Nothing to release when the addon never loaded (it then never kept a file). */
  releaseFullOutputs: (paths) => (binding ? binding.releaseFullOutputs(paths ?? null) : 0),
  runnerInfo() {
    const info = addonInfo();
    return info.path
      ? { name: "native addon", path: info.path, note: null, fallback: false }
      : { name: "native addon", path: null, note: "not loaded", fallback: false };
  },
};
// The limits are the addon's own consts; unknown (undefined) while no addon loads.
for (const name of LIMIT_NAMES) {
  Object.defineProperty(nativeRunner, name, {
    enumerable: true,
    get() {
      try {
        return loadBinding()[name];
      } catch {
        return undefined;
      }
    },
  });
}

module.exports = { loadNative, loadBinding, addonInfo, nativeRunner, target };
