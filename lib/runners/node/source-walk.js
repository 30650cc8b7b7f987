// The Node runner's walk of a workspace's source, the twin of crates/core/src/source_walk.rs:
// depth first, sorted by name, a directory before what it holds, symbolic links never followed,
// the listed directory names never entered (`skipExact` as written, `skipDirs` with `*` for any
// run of characters), `.gitignore` at every depth and `.git/info/exclude` read with the `ignore`
// package (the deepest file that decides wins). It runs in the source worker
// (source-worker.js), never on the host's thread, so it reads synchronously.
//
// A repository's own files are attacker-controlled input: an ignore file is read only when it is
// a regular file reached without a link (O_NOFOLLOW, O_NONBLOCK, O_NOCTTY, checked on the fd),
// and only its first MAX_IGNORE_FILE_BYTES (counted in `ignoreFilesCut`). The deadline and the
// cancel flag are checked before each entry, while a large directory is listed and while an
// ignore file's patterns are added. `ignore` is an optional dependency: where it is not
// installed, no `.gitignore` is read (`gitignoreReadable()` is false).

const fs = require("node:fs");
const path = require("node:path");
const { readRegularSync } = require("../../contract/files.js");

/** As crates/core/src/source_walk.rs. */
const MAX_IGNORE_FILE_BYTES = 64 * 1024;
const IGNORE_LINES_PER_CHUNK = 128;
const LIST_CHECK_EVERY = 1024;

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

const byBytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The walk (a generator of `{ abs, extension, stat }` for the files that have an extension, in
 * walk order): `cwd`, `{ skipDirs, skipExact }`, `stop()` (true once the deadline passed or the
 * caller cancelled: the walk then ends). `state.stopped` is set by `stop`'s caller; `state`
 * gets `ignoreFilesCut`.
 */
function* sourceFiles(cwd, { skipDirs = [], skipExact = [] }, stop, state) {
  state.ignoreFilesCut = 0;
  const skips = (name) => skipExact.includes(name) || skipDirs.some((g) => globMatches(g, name));

  /** The patterns of one ignore file, added a chunk of lines at a time; null when none or stopped. */
  function ignoreFile(file) {
    const ignore = ignoreFactory();
    if (!ignore) return null;
    let read;
    try {
      read = readRegularSync(file, MAX_IGNORE_FILE_BYTES, { workspace: true });
    } catch {
      return null;
    }
    let text = read.bytes.toString("utf8");
    if (read.more) {
      state.ignoreFilesCut += 1;
      text = text.slice(0, Math.max(0, text.lastIndexOf("\n")));
    }
    const lines = text.split(/\r?\n/u);
    const matcher = ignore({ allowRelativePaths: true });
    for (let i = 0; i < lines.length; i += IGNORE_LINES_PER_CHUNK) {
      if (stop()) return null;
      try {
        matcher.add(lines.slice(i, i + IGNORE_LINES_PER_CHUNK));
      } catch {
        // a pattern the package cannot read: the rest of the file still counts
      }
    }
    return matcher;
  }

  const isRealDir = (p) => {
    try {
      return fs.lstatSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const info = path.join(cwd, ".git", "info");
  const exclude = isRealDir(path.join(cwd, ".git")) && isRealDir(info) ? ignoreFile(path.join(info, "exclude")) : null;

  /** The verdict of one ignore file's patterns on `abs` (relative to `dir`): true, false, or null (none matches). */
  function verdictOf(dir, matcher, abs, isDir) {
    const rel = path.relative(dir, abs).split(path.sep).join("/") + (isDir ? "/" : "");
    try {
      const verdict = matcher.test(rel);
      return verdict.ignored ? true : verdict.unignored ? false : null;
    } catch {
      return null;
    }
  }

  /** Whether `abs` is ignored: the deepest ignore file that matches decides, then the exclude. */
  function ignored(chain, abs, isDir) {
    for (let i = chain.length - 1; i >= 0; i -= 1) {
      const { dir, matcher } = chain[i];
      const verdict = matcher ? verdictOf(dir, matcher, abs, isDir) : null;
      if (verdict !== null) return verdict;
    }
    return exclude ? verdictOf(cwd, exclude, abs, isDir) === true : false;
  }

  /** `dir`'s entry names, sorted; null when the deadline passed while listing. */
  function list(dir) {
    let handle;
    try {
      handle = fs.opendirSync(dir);
    } catch {
      return [];
    }
    const names = [];
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        names.push(entry.name);
        if (names.length % LIST_CHECK_EVERY === 0 && stop()) return null;
      }
    } catch {
      // a directory that cannot be read further: what was listed counts
    } finally {
      handle.closeSync();
    }
    return names.sort(byBytes);
  }

  function* walk(dir, chain) {
    const names = list(dir);
    if (names === null) return;
    const own = names.includes(".gitignore") ? ignoreFile(path.join(dir, ".gitignore")) : null;
    const here = [...chain, { dir, matcher: own }];
    for (const name of names) {
      if (stop()) return;
      const abs = path.join(dir, name);
      let stat;
      try {
        stat = fs.lstatSync(abs);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (!skips(name) && !ignored(here, abs, true)) yield* walk(abs, here);
        continue;
      }
      if (!stat.isFile() || ignored(here, abs, false)) continue;
      const extension = path.extname(name).slice(1).toLowerCase();
      if (extension !== "") yield { abs, extension, stat };
    }
  }
  yield* walk(cwd, []);
}

/** Whether `.gitignore` files are read (the optional `ignore` package is installed). */
const gitignoreReadable = () => ignoreFactory() !== null;

/** `abs` relative to `cwd`, `/`-separated. */
const shownPath = (cwd, abs) => path.relative(cwd, abs).split(path.sep).join("/");

/**
 * A stop function for a walk begun at `started` (ms): true once `deadlineMs` passed or `cancel`
 * (an Int32Array over a SharedArrayBuffer, or null) holds a non-zero value; `state.stopped` says which.
 */
function stopper(started, deadlineMs, cancel, state) {
  return () => {
    if (state.stopped) return true;
    if (cancel && Atomics.load(cancel, 0) !== 0) state.stopped = "cancelled";
    else if (Date.now() - started >= deadlineMs) state.stopped = "deadline";
    return Boolean(state.stopped);
  };
}

module.exports = { MAX_IGNORE_FILE_BYTES, gitignoreReadable, shownPath, sourceFiles, stopper };
