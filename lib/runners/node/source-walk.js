// The Node runner's walk of a workspace's source, the twin of crates/core/src/source_scan.rs's
// `walker`: sorted by name, symlinks not followed, `.gitignore` at every depth and
// `.git/info/exclude` read with the `ignore` package (the deepest that decides wins), the listed
// directory names never entered. `ignore` is an optional dependency, required when a walk first
// runs: where it is not installed, no `.gitignore` is read (`gitignoreReadable()` is false).

const fsp = require("node:fs/promises");
const path = require("node:path");

let ignorePackage;
/** The `ignore` package, or null where it is not installed. */
function ignoreFactory() {
  if (ignorePackage === undefined) {
    try {
      ignorePackage = require("ignore");
    } catch {
      ignorePackage = null;
    }
  }
  return ignorePackage;
}

/** Whether directory `name` is one `glob` lists (`*` matches any run of characters). */
function globMatches(glob, name) {
  const source = glob
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "su").test(name);
}

const byBytes = (a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/** The gitignore matcher of one directory (its `.gitignore`; at the root `.git/info/exclude` too), or null. */
async function matcherOf(dir, isRoot) {
  const ignore = ignoreFactory();
  if (!ignore) return null;
  const files = [path.join(dir, ".gitignore")];
  if (isRoot) files.unshift(path.join(dir, ".git", "info", "exclude"));
  let matcher = null;
  for (const file of files) {
    const text = await fsp.readFile(file, "utf8").catch(() => null);
    if (text === null) continue;
    matcher ??= ignore({ allowRelativePaths: true });
    try {
      matcher.add(text);
    } catch {
      // a pattern the package cannot read: the rest of the file still counts
    }
  }
  return matcher;
}

/** Whether `abs` is ignored by the matchers of its directories (`chain`: root first). */
function ignored(chain, abs, isDir) {
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const { dir, matcher } = chain[i];
    if (!matcher) continue;
    const rel = path.relative(dir, abs).split(path.sep).join("/") + (isDir ? "/" : "");
    let verdict;
    try {
      verdict = matcher.test(rel);
    } catch {
      continue;
    }
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/**
 * Every entry of `cwd`'s tree the walk enters or lists, in the Rust walk's order: `{ abs, entry }`
 * (a `fs.Dirent`; a directory is yielded before what it holds). The caller checks its bounds at
 * each entry and stops by leaving the loop.
 */
async function* walkSource(cwd, skipDirs) {
  async function* walk(dir, chain) {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort(byBytes);
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (skipDirs.some((g) => globMatches(g, entry.name)) || ignored(chain, abs, true)) continue;
        yield { abs, entry };
        yield* walk(abs, [...chain, { dir: abs, matcher: await matcherOf(abs, false) }]);
        continue;
      }
      if (ignored(chain, abs, false)) continue;
      yield { abs, entry };
    }
  }
  yield* walk(cwd, [{ dir: cwd, matcher: await matcherOf(cwd, true) }]);
}

/**
 * The files of the walk that have an extension, in its order: `{ abs, entry, extension }` (the
 * extension lowercased), until `deadlineMs` has passed since `started` (checked before each
 * entry, a directory's too): then `{ stopped: "deadline" }`, the last item. The twin of
 * crates/core/src/source_scan.rs `source_files`.
 */
async function* sourceFiles(cwd, skipDirs, started, deadlineMs) {
  for await (const { abs, entry } of walkSource(cwd, skipDirs)) {
    if (Date.now() - started >= deadlineMs) {
      yield { stopped: "deadline" };
      return;
    }
    if (!entry.isFile()) continue;
    const extension = path.extname(entry.name).slice(1).toLowerCase();
    if (extension !== "") yield { abs, entry, extension };
  }
}

/** Whether `.gitignore` files are read (the optional `ignore` package is installed). */
const gitignoreReadable = () => ignoreFactory() !== null;

/** `abs` relative to `cwd`, `/`-separated. */
const shownPath = (cwd, abs) => path.relative(cwd, abs).split(path.sep).join("/");

module.exports = { gitignoreReadable, shownPath, sourceFiles };
