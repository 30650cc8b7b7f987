// The source scan's side of codegraph_changes: the lines that mention each changed name (text
// matches, not the graph), ordered so the likeliest uses come first (the changed file's own, then
// call-like lines outside test files, then the rest), each with the definition that holds it by
// the file's outline where the outline is sure of one (never a macro template); and the changed
// file's test files ranked: those that cover a changed symbol first (a dependent's file, or a
// file that mentions a changed name), then those named like the changed file or its dependents'.

const { mentionScan } = require("../contract/call-sites.js");
const { isScannableName } = require("../contract/definitions.js");

/** At most this many names are searched in the source (one scan for all). */
const MAX_SEARCHED = 6;
/** At most this many files holding mentions are outlined for their enclosing definitions. */
const MAX_OUTLINED = 60;
/** The callers whose names are searched in the tests: at most this many, each this long at least. */
const MAX_CALLER_NAMES = 4;
const MIN_CALLER_NAME = 5;
/** The kinds of definition that call (a text match in a type or a module is no call). */
const CALLABLE = new Set(["function", "method", "constructor"]);
/** The caller search reads at most this many matches; at most this many test files are named. */
const MAX_CALLER_MATCHES = 2048;
const MAX_CALLER_TESTS = 3;
/** At most this many test files affected does not list are named by their file name. */
const MAX_UNLISTED = 3;

/** Whether workspace-relative `p` reads as a test file (a tests directory, or a test's file name). */
function isTestPath(p) {
  const parts = String(p).split("/");
  const base = parts.at(-1) ?? "";
  return (
    parts.slice(0, -1).some((d) => /^(tests?|__tests__|spec)$/i.test(d)) ||
    /^test_|_tests?\.|\.(test|spec)\./i.test(base)
  );
}

/** Whether a line's text calls or applies `name` (`name(`, `name!(`, `name::<`, `name<…>(`). */
const callLike = (text, name) =>
  new RegExp(`(^|[^\\w$])${name.replace(/[$]/g, "\\$")}\\s*(!\\s*)?(\\(|::<|<[^;{}]*>\\s*\\()`).test(text);

/**
 * The lines that mention each of `names` (the source scan, as text): `{ searched, byName, cut }`
 * (`byName`: name → [{ path, line, text }]; `cut`: the bound that stopped the scan, or null).
 */
async function mentions(deps, cwd, names, signal) {
  const none = { searched: [], byName: new Map(), cut: null };
  const wanted = names.filter(isScannableName).slice(0, MAX_SEARCHED);
  if (wanted.length === 0 || typeof deps.scan !== "function") return none;
  const found = await deps.scan(cwd, mentionScan(wanted), signal).catch(() => null);
  if (!found) return none;
  const byName = new Map(wanted.map((n) => [n, []]));
  // A search a bound cut (its files, its matches, its time) may have missed some.
  const cut = typeof found.stopped === "string" ? { stopped: found.stopped, filesScanned: found.filesScanned } : null;
  for (const m of Array.isArray(found.matches) ? found.matches : []) {
    const tags = Array.isArray(m.tags) ? m.tags : [];
    if (tags.includes("defines") || typeof m.text !== "string") continue;
    if (/^\s*(import\b|from\s+\S+\s+import\b|use\s|#include|\/\/|#|\*|\/\*)/.test(m.text)) continue;
    for (const n of wanted) {
      if (!new RegExp(`(^|[^\\w$])${n.replace(/[$]/g, "\\$")}([^\\w$]|$)`).test(m.text)) continue;
      byName.get(n).push({ path: m.path, line: m.line, text: m.text.trim().slice(0, 100) });
    }
  }
  return { searched: wanted, byName, cut };
}

/** `list` ordered for symbol `name` of file `own`: its file's lines, call-like lines outside tests, the rest. */
function ordered(list, name, own) {
  const rank = (m) => (m.path === own ? 0 : isTestPath(m.path) ? 3 : callLike(m.text, name) ? 1 : 2);
  return list
    .map((m, i) => ({ m, i, r: rank(m) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.m);
}

/**
 * Each symbol's mentions (`s.mentions`, set by changesFacts) in order, each with `within`: the
 * innermost definition of the file's outline that holds its line (`{ name, line }`), where the
 * outline has one and it is no macro template. Outlines at most MAX_OUTLINED files.
 */
async function placeMentions(deps, cwd, files, signal) {
  const symbols = files.flatMap((f) => f.symbols.filter((s) => Array.isArray(s.mentions)).map((s) => ({ f, s })));
  for (const { f, s } of symbols) s.mentions = ordered(s.mentions, s.name, f.path);
  if (typeof deps.outline !== "function") return;
  const paths = [...new Set(symbols.flatMap(({ s }) => s.mentions.map((m) => m.path)))].slice(0, MAX_OUTLINED);
  if (paths.length === 0) return;
  const outline = await deps.outline(cwd, { paths }, signal).catch(() => null);
  const byPath = new Map();
  for (const o of outline?.files ?? []) if (o && !o.problem && Array.isArray(o.definitions)) byPath.set(o.path, o);
  for (const { s } of symbols) {
    for (const m of s.mentions) {
      const defs = byPath.get(m.path)?.definitions;
      if (!defs) continue;
      let inner = null;
      for (const d of defs) if (d.line <= m.line && m.line <= d.endLine && (!inner || d.line >= inner.line)) inner = d;
      if (inner && typeof inner.macro !== "string" && typeof inner.name === "string" && inner.line !== m.line)
        m.within = { name: inner.name, kind: inner.kind, line: inner.line };
    }
  }
}

// biome-ignore format: one list
const GENERIC = new Set([
  "src", "lib", "mod", "index", "init", "main", "tests", "test", "spec", "internal", "testing",
  "with", "to", "of", "for", "in", "on", "by", "is", "as", "at", "from", "and", "or", "the", "get", "set", "new",
]);
/** The words of a path's parts (`src/time/sleep.rs` → time, sleep), generic ones left out. */
const words = (p) =>
  String(p)
    .replace(/\.[^./]+$/, "")
    .split(/[/_.\-\s]+|(?<=[a-z])(?=[A-Z])/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 1 && !GENERIC.has(w));

/** A test's own file name (`tests.py`, `test_x.py`, `x_test.go`, `x.test.ts`), not a fixture beside it. */
const TEST_NAME = /^(tests?\.|test_)|_tests?\.|\.(test|spec)\./i;

/** A path within its package: the first directory left out (`django/urls/base.py` → urls/base.py). */
const inPackage = (p) => (p.split("/").length > 2 ? p.split("/").slice(1).join("/") : p);

/** The words of a test file's name and its directory's (`tests/signing/tests.py` → signing). */
const nameWords = (p) => words(p.split("/").slice(-2).join("/"));

/**
 * File `f`'s test files (`f.tests`, CodeGraph's affected) ranked: `{ covering, named, rest,
 * unlisted }`. `covering`: those that hold a direct dependent of a changed symbol (its call or
 * import) or mention a changed name; `named`: those whose file or directory name shares words with the changed
 * file or a changed symbol (twice the weight) or a dependent's file outside the tests, most shared first; `rest`:
 * those holding an indirect dependent first, then CodeGraph's order. `unlisted`: test files of
 * `tracked` (the repository's files) that affected does not list, named with every word of the
 * changed file's name (its directory's for a `mod.rs` or `__init__.py`), at most MAX_UNLISTED.
 */
function rankTests(f, tracked = []) {
  const tests = Array.isArray(f.tests) ? f.tests : [];
  const direct = new Set();
  const indirect = new Set();
  const fileWords = new Set(words(inPackage(f.path)));
  const symbolWords = new Set(f.symbols.flatMap((s) => words(s.name)));
  const theirs = new Set();
  for (const s of f.symbols) {
    for (const d of s.impact?.dependents ?? []) (d.callAt ? direct : indirect).add(d.path);
    for (const m of s.mentions ?? []) direct.add(m.path);
  }
  for (const p of direct) if (!isTestPath(p)) for (const w of words(inPackage(p))) theirs.add(w);
  const covering = tests.filter((t) => direct.has(t));
  const weight = (w) => (symbolWords.has(w) ? 3 : fileWords.has(w) ? 2 : theirs.has(w) ? 1 : 0);
  const score = (t) => [...new Set(nameWords(t))].reduce((n, w) => n + weight(w), 0);
  const named = tests
    .filter((t) => !direct.has(t))
    .map((t, i) => ({ t, i, n: score(t), k: TEST_NAME.test(t.split("/").pop()) ? 0 : 1 }))
    .filter((x) => x.n > 0)
    .sort((a, b) => a.k - b.k || b.n - a.n || a.i - b.i)
    .map((x) => x.t);
  const taken = new Set([...covering, ...named]);
  const left = tests.filter((t) => !taken.has(t));
  const rest = [...left.filter((t) => indirect.has(t)), ...left.filter((t) => !indirect.has(t))];
  const parts = f.path.split("/");
  let stem = words(parts.at(-1));
  if (stem.length === 0) stem = words(parts.at(-2) ?? "");
  const listed = new Set(tests);
  const unlisted =
    stem.length === 0
      ? []
      : tracked
          .filter((t) => t !== f.path && !listed.has(t) && isTestPath(t))
          .filter((t) => {
            const w = new Set(nameWords(t));
            return stem.every((x) => w.has(x));
          })
          .slice(0, MAX_UNLISTED);
  return { covering, named, rest, unlisted };
}

/**
 * The test files that mention the changed symbols' callers most (one scan of the source for all):
 * each file's `f.callerTests = { names, top: [{ path, count }], cut }`, `names` its callers' names
 * searched (the direct dependents' and the functions that hold a call-like text match, outside the
 * tests, neither a changed name nor a dunder nor shorter than MIN_CALLER_NAME), `count` the lines of a test file that mention one of them.
 */
async function callerTests(deps, cwd, files, signal) {
  if (typeof deps.scan !== "function") return;
  const changed = new Set(files.flatMap((f) => f.symbols.map((s) => s.name)));
  const namesOf = new Map();
  for (const f of files) {
    const names = new Set();
    for (const s of f.symbols) {
      for (const d of s.impact?.dependents ?? []) if (d.callAt && !isTestPath(d.path)) names.add(d.name);
      for (const m of s.mentions ?? [])
        if (m.within && CALLABLE.has(m.within.kind) && callLike(m.text, s.name) && !isTestPath(m.path))
          names.add(m.within.name);
    }
    const kept = [...names].filter(
      (n) => !changed.has(n) && n.length >= MIN_CALLER_NAME && !/^__\w+__$/.test(n) && isScannableName(n),
    );
    if (kept.length) namesOf.set(f, kept);
  }
  const wanted = [...new Set([...namesOf.values()].flat())].slice(0, MAX_CALLER_NAMES);
  if (wanted.length === 0) return;
  const request = { ...mentionScan(wanted), maxMatches: MAX_CALLER_MATCHES };
  const found = await deps.scan(cwd, request, signal).catch(() => null);
  if (!found) return;
  const cut = typeof found.stopped === "string" ? { stopped: found.stopped, filesScanned: found.filesScanned } : null;
  const hits = new Map(wanted.map((n) => [n, new Map()]));
  for (const m of Array.isArray(found.matches) ? found.matches : []) {
    if (typeof m.text !== "string" || !isTestPath(m.path) || (m.tags ?? []).includes("defines")) continue;
    for (const n of wanted) {
      if (!new RegExp(`(^|[^\\w$])${n.replace(/[$]/g, "\\$")}([^\\w$]|$)`).test(m.text)) continue;
      const byPath = hits.get(n);
      byPath.set(m.path, (byPath.get(m.path) ?? new Set()).add(m.line));
    }
  }
  for (const [f, all] of namesOf) {
    const names = all.filter((n) => wanted.includes(n));
    const lines = new Map();
    for (const n of names) {
      for (const [p, set] of hits.get(n)) lines.set(p, new Set([...(lines.get(p) ?? []), ...set]));
    }
    const top = [...lines.entries()]
      .map(([path, set]) => ({ path, count: set.size }))
      .sort((a, b) => b.count - a.count || (a.path < b.path ? -1 : 1))
      .slice(0, MAX_CALLER_TESTS);
    if (names.length) f.callerTests = { names, top, cut };
  }
}

module.exports = { MAX_SEARCHED, callerTests, isTestPath, mentions, placeMentions, rankTests };
