// Discovery: which `codegraph` runs, and how to start it without a shell (crates/core/src/discovery.rs).
// Only absolute PATH entries are searched: a relative entry (or an empty one, which some shells
// read as ".") would resolve against the workspace, and a `codegraph` planted in a repository
// must never run just because Pi was started there.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { notFound } = require("../../contract/problems.js");
const { IS_WINDOWS } = require("../../contract/limits.js");
const { envGet, envSet } = require("../../contract/env-snapshot.js");
const { isWithin, readRegular } = require("../../contract/files.js");

const BIN_OVERRIDE_VAR = "PI_CODEGRAPH_BIN";
/** Set to `1` to let a `codegraph` found on PATH run from inside the workspace. */
const ALLOW_WORKSPACE_BIN_VAR = "PI_CODEGRAPH_ALLOW_WORKSPACE_BIN";
const CODEGRAPH_NAMES = IS_WINDOWS ? ["codegraph", "codegraph.cmd"] : ["codegraph"];
/** CodeGraph's npm package; its `npm-shim.js` finds `<name>-<platform>-<arch>`. */
const CODEGRAPH_NPM_PACKAGE = "@colbymchenry/codegraph";
/** A package.json larger than this is not CodeGraph's. */
const MAX_PACKAGE_JSON_BYTES = 256 * 1024;

/** An executable file (on Windows any file: its extension decides). */
async function isExecutable(file) {
  try {
    if (!(await fsp.stat(file)).isFile()) return false;
    if (!IS_WINDOWS) await fsp.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const isRegularFile = (p) =>
  fsp.stat(p).then(
    (st) => st.isFile(),
    () => false,
  );

/**
 * The first of `names` in the ABSOLUTE entries of PATH that `accept` allows, in name order. On
 * Windows a name without extension is tried with each PATHEXT extension.
 */
async function searchPath(names, env, accept = async () => true) {
  const dirs = (envGet(env, "PATH") ?? "")
    .split(path.delimiter)
    .map((d) => (IS_WINDOWS ? d.replace(/^"(.*)"$/, "$1") : d))
    .filter((d) => d && path.isAbsolute(d));
  const exts = (envGet(env, "PATHEXT") || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  for (const name of names) {
    const variants = IS_WINDOWS && !path.extname(name) ? exts.map((e) => name + e) : [name];
    for (const dir of dirs) {
      for (const v of variants) {
        const p = path.join(dir, v);
        if ((await isExecutable(p)) && (await accept(p))) return p;
      }
    }
  }
  return null;
}

/**
 * The user opted in to code from inside the workspace (PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1):
 * discovery may pick it, and the child's environment is passed on unfiltered.
 */
const allowsWorkspaceCode = (env) => envSet(env, ALLOW_WORKSPACE_BIN_VAR) === "1";

/**
 * The one "inside the workspace" rule, for executables and for every path the child inherits:
 * `p` resolves (symlinks followed, `..` applied) to `home` or below it. `home` is the workspace
 * with symlinks resolved, computed once per call. A path that does not exist (yet) is judged by
 * its longest existing ancestor, resolved, plus the rest: a PATH entry such as
 * `<workspace>/node_modules/.bin` counts as inside before `npm install` made it.
 */
async function resolvesInside(p, home) {
  const resolved = await resolveLeniently(p, 0);
  // A call in another root on behalf of Pi's workspace counts both as the workspace (`home` a list).
  return (Array.isArray(home) ? home : [home]).some((h) => isWithin(resolved, h));
}

/** `p` with its longest existing prefix resolved (by the kernel: `..` after a link is physical) and the rest applied. */
async function resolveLeniently(p, depth) {
  const { root } = path.parse(p);
  const parts = p
    .slice(root.length)
    .split(IS_WINDOWS ? /[\\/]+/ : /\/+/)
    .filter((s) => s && s !== ".");
  const joined = (n) => root + parts.slice(0, n).join(path.sep);
  for (let i = parts.length; i >= 0; i--) {
    let base = root;
    if (i > 0) {
      const prefix = joined(i);
      const real = await fsp.realpath(prefix).catch(() => null);
      if (real !== null) base = real;
      else {
        // A dangling symlink: the kernel follows it once its target exists.
        const target = depth < 40 ? await fsp.readlink(prefix).catch(() => null) : null;
        if (target === null) continue;
        const parent = joined(i - 1);
        const sep = parent.endsWith(path.sep) ? "" : path.sep;
        base = await resolveLeniently(path.isAbsolute(target) ? target : parent + sep + target, depth + 1);
      }
    }
    for (const part of parts.slice(i)) base = part === ".." ? path.dirname(base) : path.join(base, part);
    return base;
  }
}

/**
 * `{ executable, program, prefix, inWorkspace, bundle, besidePackage? }`: run `program ...prefix <args>`;
 * `executable` is what the user has. `home` is the workspace with symlinks resolved.
 * PI_CODEGRAPH_BIN is the user's explicit choice and is used wherever it is; on PATH an
 * executable that resolves inside the workspace is skipped unless the user opted in.
 */
async function discover(home, env) {
  const inside = (p) => resolvesInside(p, home);
  const allowInside = allowsWorkspaceCode(env);
  // npm's `.cmd` layout on Windows looks `node` up on PATH: the same rule as for `codegraph`.
  const nodeOk = async (p) => allowInside || !(await inside(p));
  const override = envSet(env, BIN_OVERRIDE_VAR);
  if (override) {
    if (!path.isAbsolute(override))
      throw notFound({ is: "overrideRelative", variable: BIN_OVERRIDE_VAR, value: override });
    if (!(await isRegularFile(override)))
      throw notFound({ is: "overrideMissing", variable: BIN_OVERRIDE_VAR, value: override });
    return launchFor(override, await inside(override), env, nodeOk);
  }
  let skipped = null;
  let foundInside = false;
  const found = await searchPath(CODEGRAPH_NAMES, env, async (p) => {
    foundInside = await inside(p);
    if (foundInside && !allowInside) {
      skipped ??= p;
      return false;
    }
    return true;
  });
  if (found) return launchFor(found, foundInside, env, nodeOk);
  // None on PATH: the CLI installed beside this package, under the same workspace rule.
  const beside = packageCli !== null && (await isRegularFile(packageCli)) ? packageCli : null;
  const besideInside = beside !== null && (await inside(beside));
  if (beside && (allowInside || !besideInside))
    return { ...(await launchFor(beside, besideInside, env, nodeOk)), besidePackage: true };
  const names = CODEGRAPH_NAMES;
  throw notFound({ is: "notOnPath", names, skipped: skipped ?? undefined, allowVariable: ALLOW_WORKSPACE_BIN_VAR });
}

/**
 * The CodeGraph CLI installed beside this package (the checkout's `node_modules/.bin/codegraph`):
 * the last place discovery looks, after PI_CODEGRAPH_BIN and PATH (the addon's
 * discovery/package_cli.rs). Set once by the package when it loads; a relative path is ignored.
 */
let packageCli = null;
function setPackageCli(file) {
  packageCli = typeof file === "string" && path.isAbsolute(file) ? file : null;
}

/**
 * A `package.json`, read only when it is a regular file of a sane size (opened non-blocking and
 * checked on the descriptor, so one swapped for a FIFO cannot stall a call); null otherwise.
 */
async function readManifest(file) {
  try {
    // One byte past the bound tells a file that is too large.
    const bytes = await readRegular(file, MAX_PACKAGE_JSON_BYTES + 1);
    if (bytes.length > MAX_PACKAGE_JSON_BYTES) return null;
    const m = JSON.parse(bytes.toString("utf8"));
    if (!m || typeof m !== "object") return null;
    const version = m.version;
    if (version !== undefined && (typeof version !== "string" || !version || version.length > 64)) return null;
    return m;
  } catch {
    return null;
  }
}

const binPath = (m, name) => (m?.bin && typeof m.bin === "object" ? m.bin[name] : undefined);

/**
 * When `executable` resolves to CodeGraph's npm shim (`<pkg>/npm-shim.js`, its declared
 * `codegraph` bin): the platform bundle's `bin/codegraph`, found as the shim's require.resolve
 * would find it, and its version. The shim only starts Node to exec that launcher. Not on Windows.
 */
async function npmBundle(executable) {
  if (IS_WINDOWS) return null;
  let real;
  try {
    real = await fsp.realpath(executable);
  } catch {
    return null;
  }
  const pkgDir = path.dirname(real);
  const manifest = await readManifest(path.join(pkgDir, "package.json"));
  if (manifest?.name !== CODEGRAPH_NPM_PACKAGE || binPath(manifest, "codegraph") !== "npm-shim.js") return null;
  if (path.basename(real) !== "npm-shim.js") return null;
  const platform = process.platform; // Node already says darwin / linux
  const bundleName = `${CODEGRAPH_NPM_PACKAGE}-${platform}-${process.arch}`;
  for (let dir = pkgDir; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      const bundle = path.join(dir, "node_modules", bundleName);
      const launcher = path.join(bundle, "bin", "codegraph");
      if (await isRegularFile(launcher)) {
        const m = await readManifest(path.join(bundle, "package.json"));
        return { launcher, version: m?.name === bundleName ? m.version : undefined };
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * A `.cmd` launcher would need cmd.exe, which re-parses arguments. For npm's layout we run Node
 * on CodeGraph's own npm-shim.js instead, which is what the `.cmd` does. CodeGraph's npm shim
 * elsewhere is skipped for the platform bundle it would exec (one Node start fewer).
 */
async function launchFor(executable, inWorkspace, env, nodeOk) {
  const firstOf = async (paths, test) => {
    for (const p of paths) if (await test(p)) return p;
    return null;
  };
  if (/\.(cmd|bat)$/i.test(executable)) {
    const dir = path.dirname(executable);
    const pkg = path.join("@colbymchenry", "codegraph", "npm-shim.js");
    const shim = await firstOf([path.join(dir, "node_modules", pkg), path.join(dir, "..", pkg)], isRegularFile);
    const node =
      (await firstOf([path.join(dir, "node.exe"), path.join(dir, "node")], isExecutable)) ??
      (await searchPath(["node"], env, nodeOk));
    if (shim && node) return { executable, program: node, prefix: [shim], inWorkspace, bundle: null };
  }
  const bundle = await npmBundle(executable);
  if (bundle) return { executable, program: bundle.launcher, prefix: [], inWorkspace, bundle };
  return { executable, program: executable, prefix: [], inWorkspace, bundle: null };
}

/** What actually runs: the bundle's launcher, or the executable itself. */
const launchRuns = (launch) => launch.bundle?.launcher ?? launch.executable;

module.exports = {
  isExecutable,
  searchPath,
  allowsWorkspaceCode,
  resolvesInside,
  discover,
  setPackageCli,
  readManifest,
  binPath,
  launchFor,
  launchRuns,
};
