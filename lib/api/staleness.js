// Staleness, told without touching the index: which files an answer cites changed or vanished
// after CodeGraph's index (`codegraph.db` and its `-wal` in the index directory a diagnosis or an
// answer names: the one the CLI opens, `.codegraph/` or another by CodeGraph's rule) was last
// written (the session's ledger of changed files, lib/api/edit-ledger.js, builds on it). The
// index is never opened, only `stat`ed; every filesystem check of one answer races one short
// deadline (a hung mount or a stalled libuv pool must not delay the answer: what is not known by
// then is not said).

const fsp = require("node:fs/promises");
const path = require("node:path");
const { countLines } = require("../contract/limits.js");
const { DEFAULT_INDEX_DIR } = require("../contract/index-dir.js");
const { isWithin, writtenMs } = require("../contract/files.js");
const { staleAnswerLine } = require("../words/staleness.js");

/** All the checks of one answer (or one ledger re-check) settle by this deadline, or are not told. */
const STALE_CHECK_MS = 300;
/** At most this many unique cited paths are checked per answer. */
const MAX_CITED_PATHS = 50;
/** The index files whose mtime says when CodeGraph last wrote the index. */
const INDEX_FILES = ["codegraph.db", "codegraph.db-wal"];
/**
 * Never counted as edits of the code: git's directory, CodeGraph's own by their family name
 * (`.codegraph`, any `.codegraph-*`), and the index directories the runner found (`indexNames`:
 * their names, from an answer's or a diagnosis' `indexDir`; CODEGRAPH_DIR's `.cg`).
 */
const notCode = (name, indexNames) =>
  name === ".git" ||
  name === DEFAULT_INDEX_DIR ||
  name.startsWith(`${DEFAULT_INDEX_DIR}-`) ||
  indexNames.includes(name);
/** The name of the index directory `dir` (absolute, as the runner reports it), as a list: none without one. */
const namesOf = (dir) => (typeof dir === "string" && dir !== "" ? [path.basename(dir)] : []);

/** A cited path as CodeGraph prints it: relative, `/`-separated, ending in a file extension. */
const PATH_SHAPE = /^(?:[\p{L}\p{N}_.+@-]+\/)*[\p{L}\p{N}_.+@-]*[\p{L}\p{N}_+@-]\.[A-Za-z][A-Za-z0-9]{0,9}$/u;
/** Where a candidate ends: whitespace and the punctuation CodeGraph wraps paths in. */
const TOKEN_SPLIT = /[\s`'"()[\]{}<>,;*|]+/u;

/** A section header of an explore answer: "**`src/task/mod.rs`** — spawn(function)". */
const SECTION_HEADER = /^\*\*`([^`]+)`\*\*/u;
/** A row of explore's "Not shown above" list: "- src/util/c7.ts: caller7:2, c7.ts:1". */
const POINTER_ROW = /^- ([^\s:`]+): /u;
/**
 * A row of explore's blast radius: "- `spawn` (src/task/mod.rs:2) — 3 callers in `src/a.rs`,
 * `app.rs` +1 more; tests: `tests/t.rs`" (or "; tested via callers: `…`"). Every file in
 * backticks after the count is a caller's file as the index holds it, its whole path (1.6.1
 * mcp/tools.js: `rel(n.filePath)`), never a trimmed-files label.
 */
const BLAST_ROW = /^- `[^`]*` \([^()\s]+\) — \d+ callers? (.*)$/u;
/**
 * A location as CodeGraph prints a symbol's: "name (src/a.ts:3)", "(app.ts:1-9)": the file its
 * index holds, even at the root (bare, `compiler.py:1` may be a file's own symbol).
 */
const LOCATION = /\(([^()\s`:]+)(?::\d+)+(?:-\d+)?\)/gu;
const BACKTICKED = /`([^`]+)`/gu;

/** The paths `line` prints as files the index holds besides headers and rows: locations, a blast-radius row's files. */
function indexedOn(line) {
  const paths = new Set([...line.matchAll(LOCATION)].map((m) => m[1]));
  const blast = BLAST_ROW.exec(line);
  if (blast) for (const m of blast[1].matchAll(BACKTICKED)) paths.add(m[1]);
  return paths;
}

/**
 * CodeGraph's completeness note names trimmed files by labels, not paths: each the shortest
 * suffix no other path of the same answer ends with ("Trimmed for size: `task/mod.rs`,
 * `current_thread/mod.rs` +3 more; gap markers …"). The labels run to the first ";".
 */
const TRIMMED_LIST = /Trimmed for size: ([^;]*)/u;

/** A location's line suffix: ":12", ":3:7", ":4-9". */
const LINE_SUFFIX = /^(?::\d+)+(?:-\d+)?$/;

/** `raw` without its leading `@`s and its trailing `.` and `:` (a loop: a regular expression for it is quadratic in a long run). */
function trimToken(raw) {
  let start = 0;
  let end = raw.length;
  while (start < end && raw[start] === "@") start += 1;
  while (end > start && (raw[end - 1] === "." || raw[end - 1] === ":")) end -= 1;
  return raw.slice(start, end);
}

/**
 * The path-shaped tokens of `text` (one line), each `{ path, line }` (`line`: it had a `:line`
 * suffix). A path holds no `:`, so it ends at the token's first one; what follows must be a line
 * suffix. Linear in the line, whatever it holds.
 */
function pathTokens(text) {
  const tokens = [];
  for (const raw of text.split(TOKEN_SPLIT)) {
    const token = trimToken(raw);
    const colon = token.indexOf(":");
    const p = colon === -1 ? token : token.slice(0, colon);
    if (colon !== -1 && !LINE_SUFFIX.test(token.slice(colon))) continue;
    if (PATH_SHAPE.test(p)) tokens.push({ path: p, line: colon !== -1 });
  }
  return tokens;
}

/**
 * The files `text` cites, as `{ cited: [{ path, deletable }], flagged: Set<path> }`: `path`
 * relative as printed (a `:line` suffix removed), in order, unique, at most `max` (not counting
 * flagged ones); `flagged` the ones named on a CodeGraph warning line (⚠), which CodeGraph
 * already told about. Fenced code blocks and numbered source lines (the answer's source) are
 * skipped.
 *
 * A path is `deletable` (its absence may be told as "deleted") only where CodeGraph printed it
 * as a file its index holds: a section header, a "Not shown above" row, a blast-radius row's
 * caller and test files, a symbol's location in parentheses, or a location with a directory and a
 * line (a bare `name.ext:1` may be a file's own symbol: CodeGraph lists it as `compiler.py:1` after
 * its path). Anywhere else (prose, a docstring) a path only says "changed" when the disk holds it
 * as written. The trimmed-files labels are not
 * paths: each stands for the answer's one path that ends with it, which is cited on its own;
 * nor is any other unlocated path that is the tail of a path the answer cites.
 */
function citedPaths(text, max = MAX_CITED_PATHS) {
  const found = new Map(); // path → deletable
  const flagged = new Set();
  let fenced = false;
  for (const line of String(text).split("\n")) {
    if (line.trimStart().startsWith("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    // A numbered source line (node's file mode prints the file as `<n>\t<text>`, unfenced) is
    // code: its `"./cart.js"` is an import, not a citation (relative to the workspace it would be "deleted").
    if (/^\d+\t/.test(line)) continue;
    const warns = line.includes("⚠");
    const header = SECTION_HEADER.exec(line)?.[1];
    const row = POINTER_ROW.exec(line)?.[1];
    const labels = TRIMMED_LIST.exec(line);
    const tokens = pathTokens(labels ? line.replace(labels[1], " ") : line);
    const indexed = indexedOn(line);
    for (const { path: p, line: located } of tokens) {
      if (warns) flagged.add(p);
      const deletable = p === header || p === row || indexed.has(p) || (located && p.includes("/"));
      found.set(p, (found.get(p) ?? false) || deletable);
    }
  }
  const all = [...found.keys()];
  const tailOfAnother = (p) => all.some((q) => q !== p && q.endsWith(`/${p}`));
  const cited = [];
  for (const [p, deletable] of found) {
    if (flagged.has(p) || (!deletable && tailOfAnother(p))) continue;
    if (cited.length >= max) break;
    cited.push({ path: p, deletable });
  }
  return { cited, flagged };
}

/**
 * A relative path CodeGraph printed, as segments, or null when it may not be checked (absolute,
 * `..`, NUL, ~, in an index directory (`indexNames`) or .git).
 */
function safeSegments(p, indexNames) {
  if (typeof p !== "string" || p === "" || p.includes("\0") || p.includes("\\")) return null;
  if (path.isAbsolute(p) || p.startsWith("~")) return null;
  const segments = p.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0 || segments.includes("..") || notCode(segments[0], indexNames)) return null;
  return segments;
}

/** `p` is strictly below `root` (the runner's rule, isWithin: a `..cache` directory is below it). */
const isInside = (root, p) => path.relative(root, p) !== "" && isWithin(p, root);
const missing = (err) => err?.code === "ENOENT" || err?.code === "ENOTDIR";

/**
 * What became of `segments` under `root` since the index: `"changed"` (a regular file written
 * after `indexMs`), `"deleted"` (gone), or null (unchanged, not a file, unreadable, or outside
 * the workspace). Each component is `lstat`ed; a symbolic link is followed only when its target
 * (realpath) is inside the workspace's real path (`realRoot()`).
 */
async function fileState(root, realRoot, segments, indexMs) {
  let current = root;
  for (let i = 0; i < segments.length; i += 1) {
    current = path.join(current, segments[i]);
    let st;
    try {
      st = await fsp.lstat(current);
    } catch (err) {
      return missing(err) ? "deleted" : null;
    }
    if (st.isSymbolicLink()) {
      let target;
      try {
        target = await fsp.realpath(current);
      } catch (err) {
        return missing(err) && i === segments.length - 1 ? "deleted" : null; // a dangling link inside is gone
      }
      if (!isInside(await realRoot(), target)) return null;
      if (i < segments.length - 1) continue;
      try {
        st = await fsp.stat(target);
      } catch {
        return null;
      }
    }
    if (i === segments.length - 1) return st.isFile() && writtenMs(st) > indexMs ? "changed" : null;
    if (!st.isDirectory()) return "deleted"; // a file where a directory was: the cited path is gone
  }
  return null;
}

/**
 * When the index in `indexDir` was last written (ms): the newest of the db and its -wal; null when
 * there is none. An empty -wal is no write: SQLite makes one whenever CodeGraph opens the index (a
 * reader, `codegraph unlock`), and a write leaves frames in it or moves the db's own time.
 */
async function indexWrittenAt(indexDir) {
  if (typeof indexDir !== "string" || indexDir === "") return null;
  const times = await Promise.all(
    INDEX_FILES.map((f) =>
      fsp.stat(path.join(indexDir, f)).then(
        (st) => (st.size > 0 || f === INDEX_FILES[0] ? st.mtimeMs : null),
        () => null,
      ),
    ),
  );
  return times[0] === null ? null : Math.max(...times.filter((t) => t !== null));
}

/**
 * `work()`'s value if it settles within `ms`, else `fallback` (the work goes on unobserved: a
 * stalled thread pool finishes it whenever it can).
 */
async function staleCheckBy(work, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, fallback);
  });
  try {
    return await Promise.race([work().catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The files `text` cites (at most MAX_CITED_PATHS), relative to `cwd`, that changed or were
 * deleted after the index in `indexDir` (the answer's `details.indexDir`) was last written and
 * `[{ path, state }]`, in the order cited, then those CodeGraph's own ⚠ line names (changed ones,
 * `flagged: true`). Empty when
 * none, when nothing is cited, without an index directory, or when the checks miss `deadlineMs`
 * (the files checked by then are told).
 */
async function staleCitedFiles(text, cwd, { deadlineMs = STALE_CHECK_MS, indexDir } = {}) {
  const { cited, flagged } = citedPaths(text);
  const names = namesOf(indexDir);
  // What CodeGraph's own ⚠ line names is checked too (the tool row's tag counts it; the appended
  // line does not repeat it): a changed file only, as CodeGraph says.
  const also = [...flagged].map((p) => ({ path: p, deletable: false, flagged: true }));
  const checks = [...cited, ...also]
    .map((c) => ({ ...c, segments: safeSegments(c.path, names) }))
    .filter((c) => c.segments);
  if (checks.length === 0 || typeof cwd !== "string") return [];
  const states = new Array(checks.length).fill(null);
  let real;
  const realRoot = () => {
    real ??= fsp.realpath(cwd);
    return real;
  };
  const work = async () => {
    const indexMs = await indexWrittenAt(indexDir);
    if (indexMs === null) return false;
    await Promise.all(
      checks.map(async (c, i) => {
        const state = await fileState(cwd, realRoot, c.segments, indexMs).catch(() => null);
        if (state === "changed" || (state === "deleted" && c.deletable)) states[i] = state;
      }),
    );
    return true;
  };
  await staleCheckBy(work, deadlineMs, false);
  return checks.flatMap((c, i) =>
    states[i] ? [{ path: c.path, state: states[i], ...(c.flagged ? { flagged: true } : {}) }] : [],
  );
}

/**
 * An answer `{ text, details }` from a command whose text cites files, with one line appended
 * naming the cited files that changed or were deleted after its index (`details.indexDir`, the
 * directory the runner checked and the CLI opened) was last written
 * (lib/words/staleness.js), and `details.staleFiles` (those CodeGraph's own ⚠ line names too, which
 * the line does not repeat: the tool row's tag counts them all); unchanged when none are. For every query
 * command whose answer names files (explore now). `options.caps` (`{ maxBytes, maxLines }`, the
 * command's): a line that would take the text past them is left out (`details.staleFiles` stays).
 */
async function withStaleness(answer, cwd, options = {}) {
  const found = await staleCitedFiles(answer.text, cwd, { indexDir: answer.details?.indexDir, ...options });
  if (found.length === 0) return answer;
  const details = { ...answer.details, staleFiles: found.map(({ path: p, state }) => ({ path: p, state })) };
  // CodeGraph's own ⚠ line told the model of the files it flags: the line names the others.
  const untold = found.filter((f) => !f.flagged);
  if (untold.length === 0) return { text: answer.text, details };
  const base = answer.text === "" || answer.text.endsWith("\n") ? answer.text : `${answer.text}\n`;
  const text = `${base}${staleAnswerLine(untold)}\n`;
  const { maxBytes, maxLines } = options.caps ?? {};
  const fits = !(Buffer.byteLength(text) > maxBytes || countLines(text) > maxLines);
  return { text: fits ? text : answer.text, details };
}

module.exports = {
  STALE_CHECK_MS,
  MAX_CITED_PATHS,
  citedPaths,
  indexWrittenAt,
  isInside,
  namesOf,
  notCode,
  staleCheckBy,
  staleCitedFiles,
  withStaleness,
};
