// The child's environment (crates/core/src/environment.rs and environment/code_paths.rs): the
// user's, without the inherited variables through which the workspace could choose the code the
// child runs, plus the quiet defaults.
//
// The child runs with cwd = workspace, so a relative or empty entry in a search list resolves
// inside it, and a host started by `npm run`/`npx` has `<workspace>/node_modules/.bin` on PATH.
// CodeGraph's `/bin/sh` launcher runs `dirname` (and `readlink`), and its CLI runs `git`, all
// looked up on PATH. Each entry of these variables must be absolute and must not resolve inside
// the workspace (resolvesInside, the rule discovery applies to `codegraph`); other entries are
// dropped and reported. Kept on purpose (they choose no code): the GIT_* variables (1.6.1's
// explore only runs `git rev-parse --show-toplevel`, which starts nothing from its config),
// TMPDIR, HOME, XDG_*, and every other variable.

const path = require("node:path");
const { allowsWorkspaceCode, resolvesInside } = require("./discovery.js");
const { IS_WINDOWS, QUIET_DEFAULTS } = require("../../contract/limits.js");
const { envGet } = require("../../contract/env-snapshot.js");

/**
 * Search lists whose entries name programs or libraries to load: PATH (every program the
 * launcher and the CLI start), Node's module path, the dynamic loaders' preload and library paths
 * (glibc and macOS dyld read an empty or relative entry against the cwd), glibc's iconv modules.
 */
const SEARCH_LISTS = [
  "PATH",
  "NODE_PATH",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "GCONV_PATH",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "DYLD_FALLBACK_LIBRARY_PATH",
  "DYLD_FRAMEWORK_PATH",
  "DYLD_FALLBACK_FRAMEWORK_PATH",
  "DYLD_VERSIONED_LIBRARY_PATH",
  "DYLD_VERSIONED_FRAMEWORK_PATH",
  "DYLD_ROOT_PATH",
];
/**
 * One file or directory that holds code: Node's compile cache, OpenSSL's config (Node reads it at
 * startup; it names provider modules to load) and module directories, CodeGraph's kernel
 * override, bash's startup script.
 */
const CODE_FILES = [
  "NODE_COMPILE_CACHE",
  "OPENSSL_CONF",
  "OPENSSL_MODULES",
  "OPENSSL_ENGINES",
  "CODEGRAPH_KERNEL_PATH",
  "BASH_ENV",
];
/** Node options that load a module or a file (Node accepts `_` for `-` in option names). */
const NODE_LOADING_OPTIONS = [
  "--require",
  "-r",
  "--import",
  "--loader",
  "--experimental-loader",
  "--env-file",
  "--env-file-if-exists",
  "--openssl-config",
  "--experimental-config-file",
  "--experimental-policy",
  "--snapshot-blob",
];
/** Node options that read a file from the working directory by themselves. */
const NODE_CWD_OPTIONS = ["--experimental-default-config-file"];
/** Windows searches the working directory before PATH (cmd.exe, libuv's spawn) unless this is set. */
const NO_CWD_SEARCH = "NoDefaultCurrentDirectoryInExePath";

/** Why `entry` may not reach the child (a DropReason tag, worded in lib/words/environment.js), if it may not. */
async function refusedEntry(entry, home) {
  if (!entry) return "empty";
  if (!path.isAbsolute(entry)) return "relative";
  // Resolved here it would be the host's; read by the child, its own cwd: the workspace.
  if (!IS_WINDOWS && /^\/+proc\/+(self|thread-self)(\/|$)/.test(entry)) return "perProcess";
  return (await resolvesInside(entry, home)) ? "inside" : null;
}

/** A list's entries, empty ones included; glibc also separates LD_PRELOAD entries with spaces. */
function splitList(value, spacesToo) {
  const entries = value.split(path.delimiter).map((d) => (IS_WINDOWS ? d.replace(/^"(.*)"$/, "$1") : d));
  if (!spacesToo) return entries;
  return entries.flatMap((e) => {
    const words = e.split(" ").filter(Boolean);
    return words.length ? words : [e];
  });
}

/** NODE_OPTIONS split as Node splits it; null where Node reports an error. */
function nodeOptionsTokens(value) {
  const tokens = [];
  let quoted = false;
  let newToken = true;
  for (let i = 0; i < value.length; i++) {
    let c = value[i];
    if (c === "\\" && quoted) {
      if (i + 1 === value.length) return null;
      c = value[++i];
    } else if (c === " " && !quoted) {
      newToken = true;
      continue;
    } else if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (newToken) tokens.push("");
    newToken = false;
    tokens[tokens.length - 1] += c;
  }
  return quoted ? null : tokens;
}

/**
 * NODE_OPTIONS reaches the child unchanged, or not at all: dropped whole when an option loads a
 * module or file that is not an absolute path outside the workspace (a bare name such as
 * `-r dotenv/config` is looked up in the workspace's node_modules), when an option reads a file
 * from the working directory, or when Node could not read it either. `[option, reason tag]` or null.
 */
async function nodeOptionsRefused(value, home) {
  const tokens = nodeOptionsTokens(value);
  if (!tokens) return [value, "nodeOptionsUnreadable"];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const eq = token.indexOf("=");
    const rawName = eq === -1 ? token : token.slice(0, eq);
    const name = rawName.startsWith("--") ? `--${rawName.slice(2).replaceAll("_", "-")}` : rawName;
    if (NODE_CWD_OPTIONS.includes(name)) return [token, "readsWorkspaceFile"];
    if (!NODE_LOADING_OPTIONS.includes(name)) continue;
    const file = eq === -1 ? (tokens[++i] ?? "") : token.slice(eq + 1);
    const option = `${name} ${file}`;
    if (!path.isAbsolute(file)) return [option, "loadsRelative"];
    if (await resolvesInside(file, home)) return [option, "loadsInside"];
  }
  return null;
}

/**
 * The child's environment for the workspace `home` (symlinks resolved): `{ env, dropped }`, the
 * user's variables without what would let the workspace choose the child's code (kept whole with
 * PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1), plus the quiet defaults they did not set (DO_NOT_TRACK
 * counts as theirs). `dropped` lists `{ variable, entry, reason }`: raw entries, reason tags. A list
 * left with no entries is removed (an empty PATH would mean the working directory again).
 */
async function childEnv(userEnv, home) {
  const env = {};
  const dropped = [];
  const allow = allowsWorkspaceCode(userEnv);
  const is = (key, names) => names.some((n) => (IS_WINDOWS ? n.toUpperCase() === key.toUpperCase() : n === key));
  for (const [key, value] of Object.entries(userEnv)) {
    const drop = (entry, reason) => dropped.push({ variable: key, entry, reason });
    if (allow || typeof value !== "string") env[key] = value;
    else if (is(key, SEARCH_LISTS)) {
      const entries = splitList(value, is(key, ["LD_PRELOAD"]));
      // Checked side by side on the thread pool: one round trip, not one per entry.
      const reasons = await Promise.all(entries.map((entry) => refusedEntry(entry, home)));
      const left = [];
      entries.forEach((entry, i) => {
        if (reasons[i]) drop(entry, reasons[i]);
        else left.push(entry);
      });
      if (left.length === entries.length) env[key] = value;
      else if (left.length) env[key] = left.join(path.delimiter);
    } else if (is(key, CODE_FILES)) {
      const reason = await refusedEntry(value, home);
      if (reason) drop(value, reason);
      else env[key] = value;
    } else if (is(key, ["NODE_OPTIONS"])) {
      const refused = await nodeOptionsRefused(value, home);
      if (refused) drop(...refused);
      else env[key] = value;
    } else env[key] = value;
  }
  if (IS_WINDOWS && !allow && envGet(env, NO_CWD_SEARCH) === undefined) env[NO_CWD_SEARCH] = "1";
  for (const [key, value] of Object.entries(QUIET_DEFAULTS)) {
    const userDecided =
      envGet(userEnv, key) !== undefined ||
      (key === "CODEGRAPH_TELEMETRY" && envGet(userEnv, "DO_NOT_TRACK") !== undefined);
    if (!userDecided) env[key] = value;
  }
  return { env, dropped };
}

/** git's own variable for `git -c` settings, which it hands to the commands it starts. */
const GIT_CONFIG_PARAMETERS = "GIT_CONFIG_PARAMETERS";
/**
 * A hooks directory nothing can be created under or read from: CodeGraph's `mkdir -p` of it fails
 * (it then says it could not install its hooks) and no hook file is found in it. On Windows a name
 * with `|`, which no Windows file system allows, resolved in the workspace.
 */
const NO_HOOKS_DIR = IS_WINDOWS ? "|no-hooks|" : "/dev/null";

/**
 * Pins the git hooks directory of every git command the child runs (`core.hooksPath`, in
 * GIT_CONFIG_PARAMETERS, which git reads after every config file and after GIT_CONFIG_COUNT's
 * entries: ours is the last word) in the child's `env`: `own` (the workspace's own `.git/hooks`,
 * git-hooks.js's ownGitHooks), or, without one, a path nothing can be created under. CodeGraph
 * writes and removes its git hooks where git names them: here, or nowhere.
 */
function pinGitHooks(env, own) {
  const pin = `'core.hookspath=${(own ?? NO_HOOKS_DIR).replaceAll("'", "'\\''")}'`;
  const key =
    (IS_WINDOWS && Object.keys(env).find((k) => k.toUpperCase() === GIT_CONFIG_PARAMETERS)) || GIT_CONFIG_PARAMETERS;
  env[key] = env[key] ? `${env[key]} ${pin}` : pin;
}

module.exports = { childEnv, pinGitHooks };
