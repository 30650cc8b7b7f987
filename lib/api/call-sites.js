// What a callers or impact answer leaves out that the source shows: CodeGraph's graph has no edge
// for a call inside a Rust macro block, for one it did not resolve (a path call, a method on a
// value whose type it did not infer), nor for many an `impl Trait for Type`. While CodeGraph
// answers `callers` or `impact`, the runner's bounded `scanSource` reads the workspace's lines
// that mention the name (lib/api/source-search.js); once the answer says what the symbol is,
// its calls are picked from them (a function or method), its other uses (a constant or
// variable), or, after `impact` of a trait, interface or class, the types that implement or
// extend it. The runner's lexer reads each file off the host's thread: a mention only in a
// comment, docstring or string is dropped (\`code: false\`); each other line is tagged on its code
// and named with the innermost definition whose lines hold it, the \`macro_rules!\` template or the
// macro block it sits in. Nothing here reads the repository or runs a pattern over more than a
// bounded line. Each place the answer does not already list is given with its file:line and where
// it sits (or the line itself, for an implementation); where the runner could not read the file
// (a language its lexer does not know, something left unclosed) it is a text match, said so, with
// no container claimed. Worded by lib/words/call-sites.js.

const { RELATION_HEAD, SEARCHED_SUBCOMMANDS, mentionScan, searchFor } = require("../contract/call-sites.js");
const { cutByBound, isScannableName } = require("../contract/definitions.js");
const { isCommentLine, notFoundName } = require("./blind-spots.js");
const { searched, shortName } = require("./source-search.js");

/** At most this many places are named (calls, and apart the other uses of a function's name); the rest are counted. */
const MAX_SITES = 8;
/** A use's line is quoted up to this many characters: how the value is read (copied, compared, passed on). */
const QUOTE_CHARS = 80;
/** A test's path (`tests/`, `__tests__/`, `test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.ts`): its places come last. */
const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|spec)\/|(?:^|\/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$/u;

/** Each definition's first line in a whole answer (lib/contract/call-sites.js's RELATION_HEAD). */
const SUBJECT = new RegExp(RELATION_HEAD.source, "gmu");
/** Past this many definitions of one name (`new`, `get`), a text search cannot tell whose a call is. */
const MAX_DEFINITIONS = 4;
/** A row naming a symbol: `method      poll_write_ready`, `  function    build:820`, `file        References.ts [imports]`. */
const ROW = /^(\s*)[a-z_]+ {2,}([^\s:]+)(?::\d+)?(?: \[\w+\])?$/u;
/** The location line under a callers row: `  src/runtime/io/registration.rs:115`. */
const ROW_LOCATION = /^\s+(\S+):\d+$/u;
/** A file heading of impact's groups: `src/runtime/blocking/pool.rs`. */
const FILE_HEADING = /^([^\s:]+\.[\w]+)$/u;
/** An import or re-export line: it names the symbol without using it. */
const IMPORT_LINE = /^\s*(?:import\b|use\b|pub\s+use\b|from\s+\S+\s+import\b|export\s*(?:\{|\*))/u;

/**
 * The symbol `text` (a callers or impact answer) is about: `{ kind, name, definitions: [{ path,
 * line }] }` (the first definition's kind), or null (none, or more than MAX_DEFINITIONS).
 */
function answerSubject(text) {
  const found = [...text.matchAll(SUBJECT)];
  if (found.length === 0 || found.length > MAX_DEFINITIONS) return null;
  return {
    kind: found[0][1],
    name: shortName(found[0][2]),
    definitions: found.map((m) => ({ path: m[3], line: Number(m[4]) })),
  };
}

/** The (name, file) pairs the answer lists: callers' rows and their locations, impact's rows under their file. */
function listedPlaces(text) {
  const places = new Set();
  let heading = null;
  let pending = null;
  for (const line of text.split("\n")) {
    const location = ROW_LOCATION.exec(line);
    if (location && pending !== null) {
      places.add(`${pending}\0${location[1]}`);
      pending = null;
      continue;
    }
    const row = ROW.exec(line);
    if (row) {
      if (heading !== null && row[1] !== "") places.add(`${shortName(row[2])}\0${heading}`);
      else pending = shortName(row[2]);
      continue;
    }
    const file = FILE_HEADING.exec(line);
    heading = file ? file[1] : line.trim() === "" ? null : heading;
  }
  return places;
}

/**
 * Whether `places` lists `site`: its definition by name in its file, a macro template by its
 * macro's name, or (outside any) its file at all.
 */
function isListed(places, site) {
  if (site.macroRules) return places.has(`${site.macroRules}\0${site.path}`);
  if (site.within !== null) return places.has(`${site.within}\0${site.path}`);
  return [...places].some((p) => p.endsWith(`\0${site.path}`));
}

/** The implementing type an `impl … for T`, `class T extends …` or `class T(…)` line names, or null. */
function implementorName(lineText) {
  const rust = /\bfor\s+([^{]*?)\s*(?:\bwhere\b|\{|$)/u.exec(lineText);
  if (/\bimpl\b/u.test(lineText) && rust)
    return [...rust[1].matchAll(/[A-Za-z_]\w*/gu)].map((m) => m[0]).at(-1) ?? null;
  return /\bclass\s+([A-Za-z_$][\w$]*)/u.exec(lineText)?.[1] ?? null;
}

/** The line of a use, cut to QUOTE_CHARS, or undefined when it holds a backtick (the quote's own mark). */
function quoteOf(lineText) {
  const line = lineText.trim();
  if (line === "" || line.includes("`")) return undefined;
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line;
}

/** `sites` in the order to name them: the definition's own file, then the code's, then the tests'. */
function inOrder(sites, home) {
  const rank = (s) => (home.has(s.path) ? 0 : TEST_PATH.test(s.path) ? 2 : 1);
  return [...sites].sort((a, b) => rank(a) - rank(b));
}

/**
 * The places in `cwd`'s source that `command`'s answer `text` (callers or impact, CodeGraph 1.6.1's
 * shape) does not list: `{ name, search, sites: [{ path, line, within, quote?, shown?, macro?,
 * macroRules?, textMatch? }], more, reads, readsMore, unindexed, stopped, common }` (`quote`: an
 * implementation's line; `shown`: a use's line; `reads`: a function's name used in code but not
 * called, in the same shape; `unindexed`: callers of a name CodeGraph's index has no symbol by,
 * whose every use in code is named; `more`, `readsMore`: how many past MAX_SITES; `stopped`: the bound that ended the scan;
 * `common`: the name had more matches than the scan reads, so only its own file's are given), or
 * null when there is nothing to add, the answer is not about one symbol or was cut (`truncated`),
 * or the scan fails. `early`: the search begun with the call (lib/api/source-search.js), if any.
 */
async function unlistedUses(command, text, cwd, { scan, indexDir, truncated, early }) {
  const sub = command?.subcommand;
  if (!SEARCHED_SUBCOMMANDS.has(sub) || typeof text !== "string" || typeof scan !== "function") return null;
  // A cut answer may list the place in the part the model does not see: nothing is claimed of it.
  if (truncated) return null;
  // callers of a name the index has no symbol by (a Rust field, a name in a macro block): its uses.
  const named = answerSubject(text);
  const missing = !named && sub === "callers" ? notFoundName(command, text) : undefined;
  const unindexed = missing !== undefined;
  const subject = unindexed ? { kind: null, name: shortName(missing), definitions: [] } : named;
  const search = unindexed ? "uses" : subject && searchFor(sub, subject.kind);
  if (!search || !isScannableName(subject.name)) return null;
  // The search begun with the command serves when it looked for this name first (its tags are
  // the first name's); else it runs now.
  const begun = early?.names[0] === subject.name ? await searched(early, [subject.name], indexDir) : null;
  const found = begun ?? (await scan(cwd, mentionScan([subject.name], { indexDir })).catch(() => null)); // a help, never a failure
  if (!found) return null;
  const matches = Array.isArray(found?.matches) ? found.matches : [];
  const definitionLines = new Set(subject.definitions.map((d) => `${d.path}:${d.line}`));
  const places = listedPlaces(text);
  const sites = [];
  // A function's name used in code but not called: a field or variable of that name (a setter's
  // field, a setting read), or the function passed on. Told apart, with the line quoted.
  const reads = [];
  for (const m of matches) {
    if (definitionLines.has(`${m.path}:${m.line}`)) continue;
    const lineText = typeof m.text === "string" ? m.text : "";
    const tags = Array.isArray(m.tags) ? m.tags : [];
    // The runner's lexer read the file: a mention only in a comment, docstring or string is none.
    if (m.code === false) continue;
    const known = m.code === true;
    if ((!known && isCommentLine(lineText)) || IMPORT_LINE.test(lineText)) continue;
    if (search !== "implementations" && tags.includes("defines")) continue; // a namesake's definition
    // A mention that is not this search's (a call, a use, an implementation); a function's other
    // uses in code are its reads.
    const read = search === "calls" && sub === "callers" && known && !tags.includes("calls");
    if (search !== "uses" && !tags.includes(search) && !read) continue;
    // Where the lexer could not read the file, no container is claimed: a text match, said so.
    const within = known && typeof m.within === "string" ? m.within : null;
    const site =
      search === "implementations"
        ? { path: m.path, line: m.line, within: implementorName(lineText), quote: lineText.trim().slice(0, 120) }
        : { path: m.path, line: m.line, within };
    // A use's line says how the value is read; a text match's is not shown (its line is not sure code).
    const shown = known && (search === "uses" || read) ? quoteOf(lineText) : undefined;
    if (shown !== undefined) site.shown = shown;
    if (site.within === subject.name && search !== "implementations") continue; // its own body: recursion
    if (known && typeof m.macroRules === "string") site.macroRules = m.macroRules;
    if (isListed(places, site)) continue;
    if (!known) site.textMatch = true;
    (read ? reads : sites).push(typeof m.macro === "string" ? { ...site, macro: m.macro } : site);
  }
  // The definition's own file first (the uses nearest to it are the likeliest to be of this
  // symbol), the tests' last.
  const home = new Set(subject.definitions.map((d) => d.path));
  const stopped = typeof found.stopped === "string" ? found.stopped : null;
  // A name with more matches than the search reads is too common to list beyond its own file.
  const common = stopped === "matches";
  const keep = (list) => inOrder(common ? list.filter((s) => home.has(s.path)) : list, home);
  const kept = keep(sites);
  const keptReads = keep(reads);
  // A search a bound cut says so even when it found nothing: what it did not read may hold some.
  if (kept.length === 0 && keptReads.length === 0 && !cutByBound(stopped)) return null;
  return {
    name: subject.name,
    search,
    sites: kept.slice(0, MAX_SITES),
    more: Math.max(0, kept.length - MAX_SITES),
    unindexed,
    reads: keptReads.slice(0, MAX_SITES),
    readsMore: Math.max(0, keptReads.length - MAX_SITES),
    stopped,
    common,
    filesScanned: found.filesScanned,
  };
}

module.exports = { answerSubject, listedPlaces, unlistedUses };
