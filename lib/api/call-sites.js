// What a callers or impact answer leaves out that the source shows: CodeGraph's graph has no edge
// for a call inside a Rust macro block, for one it did not resolve (a path call, a method on a
// value whose type it did not infer), nor for many an `impl Trait for Type`. While CodeGraph
// answers `callers` or `impact`, the runner's bounded `scanSource` reads the workspace's lines
// that mention the name (lib/contract/call-sites.js); once the answer says what the symbol is,
// its calls are picked from them (a function or method), its other uses (a constant or
// variable), or, after `impact` of a trait, interface or class, the types that implement or
// extend it. Each one the answer does not already list is given with its file:line
// and the definition it sits in (or the line itself, for an implementation), as what it is: a
// text match of the same name, for the model to read. Worded by lib/words/call-sites.js.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { SEARCHED_SUBCOMMANDS, mentionScan, openedName, searchFor, useRules } = require("../contract/call-sites.js");
const { definitionRules, familyOf, isScannableName } = require("../contract/definitions.js");
const { enclosingMacro, isCommentLine } = require("./blind-spots.js");

/** At most this many places are named; the rest are counted. */
const MAX_SITES = 8;
/** How far up from a use the definition it sits in is looked for. */
const MAX_LINES_UP = 5000;

/**
 * The first line of each definition a callers or impact answer is about: `method
 * Registration::poll_ready (rust) — src/a.rs:144`; with several, each ends with its count (` (2):`,
 * ` — 3 affected symbols:`).
 */
const SUBJECT = /^([a-z_]+) (\S+) \([\w#+-]+\) — (.+?):(\d+)(?: \(\d+\):| — \d+ affected symbols?:)?$/gmu;
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

const shortName = (name) => name.split(/::|\.|#/u).at(-1);

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

/** Whether `places` lists `site`: its definition by name in its file, or (outside any) its file at all. */
function isListed(places, site) {
  if (site.within !== null) return places.has(`${site.within}\0${site.path}`);
  return [...places].some((p) => p.endsWith(`\0${site.path}`));
}

/** The definition line `index` (0-based) of `lines` sits in: the nearest one above, less indented. */
function enclosingName(family, lines, index, name) {
  const own = openedName(family, lines[index]);
  if (own !== null && own !== name) return own;
  const indent = /^\s*/u.exec(lines[index])[0].length;
  for (let i = index - 1; i >= 0 && i >= index - MAX_LINES_UP; i -= 1) {
    const text = lines[i];
    if (text.trim() === "") continue;
    const depth = /^\s*/u.exec(text)[0].length;
    if (depth >= indent) continue;
    const opened = openedName(family, text);
    if (opened !== null) return opened;
  }
  return null;
}

/** The implementing type an `impl … for T`, `class T extends …` or `class T(…)` line names, or null. */
function implementorName(lineText) {
  const rust = /\bfor\s+([^{]*?)\s*(?:\bwhere\b|\{|$)/u.exec(lineText);
  if (/\bimpl\b/u.test(lineText) && rust)
    return [...rust[1].matchAll(/[A-Za-z_]\w*/gu)].map((m) => m[0]).at(-1) ?? null;
  return /\bclass\s+([A-Za-z_$][\w$]*)/u.exec(lineText)?.[1] ?? null;
}

/** The index directory a search begun before the answer skips (the one CodeGraph's own index has). */
const EARLY_INDEX_DIR = ".codegraph";

/**
 * The search for the lines that mention the name `command` (callers or impact) asks about, begun
 * in `cwd` while CodeGraph answers: `{ name, found }` (`found` a promise of the scan's outcome,
 * null when it failed), or null for another command, a name no search looks for, or no `scan`.
 */
function mentionsWhileRunning(command, cwd, scan) {
  try {
    if (!SEARCHED_SUBCOMMANDS.has(command?.subcommand) || typeof scan !== "function") return null;
    const name = typeof command.positional === "string" ? shortName(command.positional) : undefined;
    if (!isScannableName(name)) return null;
    const found = Promise.resolve()
      .then(() => scan(cwd, mentionScan(name)))
      .catch(() => null);
    return { name, found };
  } catch {
    return null; // a description that cannot be read: nothing begun
  }
}

/**
 * The places in `cwd`'s source that `command`'s answer `text` (callers or impact, CodeGraph 1.6.1's
 * shape) does not list: `{ name, search, sites: [{ path, line, within, quote?, macro? }], more,
 * stopped, common }` (`more`: how many past MAX_SITES; `stopped`: the bound that ended the scan;
 * `common`: the name had more matches than the scan reads, so only its own file's are given), or
 * null when there is nothing to add, the answer is not about one symbol or was cut (`truncated`),
 * or the scan fails. `mentions`: mentionsWhileRunning's search, if one was begun.
 */
async function unlistedUses(command, text, cwd, { scan, indexDir, truncated, mentions }) {
  const sub = command?.subcommand;
  if (!SEARCHED_SUBCOMMANDS.has(sub) || typeof text !== "string" || typeof scan !== "function") return null;
  // A cut answer may list the place in the part the model does not see: nothing is claimed of it.
  if (truncated) return null;
  const subject = answerSubject(text);
  const search = subject && searchFor(sub, subject.kind);
  if (!search || !isScannableName(subject.name)) return null;
  // The search begun with the command (mentionsWhileRunning) serves when it looked for this name
  // and skipped this index's directory; else it runs now.
  const early = mentions?.name === subject.name && path.basename(indexDir ?? EARLY_INDEX_DIR) === EARLY_INDEX_DIR;
  const found = await (early ? mentions.found : scan(cwd, mentionScan(subject.name, { indexDir })).catch(() => null)); // a help, never a failure
  if (!found) return null;
  const rules = useRules(search, subject.name).map((r) => ({ ...r, regex: new RegExp(r.pattern, "u") }));
  const matches = Array.isArray(found?.matches) ? found.matches : [];
  const definitionLines = new Set(subject.definitions.map((d) => `${d.path}:${d.line}`));
  const defines = definitionRules([subject.name]).map((r) => ({ ...r, regex: new RegExp(r.pattern, "u") }));
  const places = listedPlaces(text);
  const files = new Map();
  const sites = [];
  for (const m of matches) {
    if (definitionLines.has(`${m.path}:${m.line}`)) continue;
    const extension = path.extname(m.path).slice(1).toLowerCase();
    const family = familyOf(extension);
    if (!files.has(m.path)) {
      const source = await fsp.readFile(path.join(cwd, m.path), "utf8").catch(() => null);
      files.set(m.path, { source, lines: source?.split("\n") ?? [] });
    }
    const { source, lines } = files.get(m.path);
    const lineText = lines[m.line - 1];
    if (lineText === undefined || isCommentLine(lineText) || IMPORT_LINE.test(lineText)) continue;
    // A mention that is not this search's (a call, a use, an implementation).
    if (!rules.find((r) => r.extensions.includes(extension))?.regex.test(lineText)) continue;
    const definition = defines.find((r) => r.extensions.includes(extension));
    if (search !== "implementations" && definition?.regex.test(lineText)) continue; // a namesake's definition
    const site =
      search === "implementations"
        ? { path: m.path, line: m.line, within: implementorName(lineText), quote: lineText.trim().slice(0, 120) }
        : { path: m.path, line: m.line, within: enclosingName(family, lines, m.line - 1, subject.name) };
    if (site.within === subject.name && search !== "implementations") continue; // its own body: recursion
    if (isListed(places, site)) continue;
    const macro = m.path.endsWith(".rs") && source !== null ? enclosingMacro(source, m.line) : null;
    sites.push(macro ? { ...site, macro } : site);
  }
  // The definition's own file first: the uses nearest to it are the likeliest to be of this symbol.
  const home = new Set(subject.definitions.map((d) => d.path));
  sites.sort((a, b) => Number(home.has(b.path)) - Number(home.has(a.path)));
  const stopped = typeof found.stopped === "string" ? found.stopped : null;
  // A name with more matches than the search reads is too common to list beyond its own file.
  const common = stopped === "matches";
  const kept = common ? sites.filter((s) => home.has(s.path)) : sites;
  if (kept.length === 0) return null;
  const more = Math.max(0, kept.length - MAX_SITES);
  return { name: subject.name, search, sites: kept.slice(0, MAX_SITES), more, stopped, common };
}

module.exports = { answerSubject, listedPlaces, mentionsWhileRunning, unlistedUses };
