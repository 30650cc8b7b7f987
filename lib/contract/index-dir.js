// Which directory CodeGraph opens as a project's index (crates/core/src/index_dir.rs): CodeGraph
// 1.6.1's own rule (dist/directory.js `codeGraphDirName`, `codeGraphDirNameFor`;
// dist/sync/watch-policy.js `detectWsl`, `isWindowsDriveMount`), computed here once for every
// check of the Node runner and of the glue that has no diagnosis to read it from (the roots scan).
// - `CODEGRAPH_DIR`, trimmed, is the name when it is a plain directory name; empty, `.`, anything
//   with `..`, `/` or `\`, or an absolute path is ignored (`.codegraph`).
// - When it is set (valid or not), or the project is not on a Windows drive under WSL, that name.
// - Under WSL (Linux with WSL_DISTRO_NAME or WSL_INTEROP set, else /proc/version saying
//   "microsoft" or "wsl") on a Windows drive (the resolved project path is /mnt/<letter> or
//   below): `.codegraph-wsl` when that is a directory, else `.codegraph` when
//   `.codegraph/codegraph.db` exists, else `.codegraph-wsl`.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { envGet } = require("./env-snapshot.js");

const DEFAULT_INDEX_DIR = ".codegraph";
const WSL_INDEX_DIR = ".codegraph-wsl";
const DB_FILE = "codegraph.db";

/** `CODEGRAPH_DIR` trimmed, when it is set to anything but white space. */
function configuredDir(env) {
  const raw = envGet(env, "CODEGRAPH_DIR");
  const trimmed = typeof raw === "string" ? raw.trim() : "";
  return trimmed === "" ? undefined : trimmed;
}

/** The index directory name without the WSL choice (`codeGraphDirName`). */
function indexDirName(env) {
  const name = configuredDir(env);
  if (name === undefined) return DEFAULT_INDEX_DIR;
  const invalid = name === "." || name.includes("..") || /[/\\]/.test(name) || path.isAbsolute(name);
  return invalid ? DEFAULT_INDEX_DIR : name;
}

let kernelSaysWsl;
/** `detectWsl`: Linux, and a WSL variable set, else the kernel's version (read once per process). */
function isWsl(env) {
  if (process.platform !== "linux") return false;
  if (envGet(env, "WSL_DISTRO_NAME") || envGet(env, "WSL_INTEROP")) return true;
  if (kernelSaysWsl === undefined) {
    try {
      const v = fs.readFileSync("/proc/version", "utf8").toLowerCase();
      kernelSaysWsl = v.includes("microsoft") || v.includes("wsl");
    } catch {
      kernelSaysWsl = false;
    }
  }
  return kernelSaysWsl;
}

/** `isWindowsDriveMount`: `/mnt/<one letter>` or below (backslashes read as slashes). */
const isWindowsDrive = (project) => /^\/mnt\/[a-z](\/|$)/i.test(String(project).replace(/\\/g, "/"));

/** The project is on a Windows drive under WSL (`isWslWindowsDrive`); `project` resolved. */
const isWslWindowsDrive = (project, env) => isWsl(env) && isWindowsDrive(project);

/**
 * The index directory name for the project at `project` (its path with symlinks resolved, as the
 * CLI's working directory is): `codeGraphDirNameFor`. `env`: the environment the CLI gets.
 */
async function indexDirNameFor(project, env) {
  if (configuredDir(env) !== undefined || !isWslWindowsDrive(project, env)) return indexDirName(env);
  const isDir = await fsp.stat(path.join(project, WSL_INDEX_DIR)).then(
    (st) => st.isDirectory(),
    () => false,
  );
  if (isDir) return WSL_INDEX_DIR;
  const hasDb = await fsp.stat(path.join(project, DEFAULT_INDEX_DIR, DB_FILE)).then(
    () => true,
    () => false,
  );
  return hasDb ? DEFAULT_INDEX_DIR : WSL_INDEX_DIR;
}

module.exports = {
  DEFAULT_INDEX_DIR,
  WSL_INDEX_DIR,
  indexDirName,
  indexDirNameFor,
  isWslWindowsDrive,
};
