// Whether an answer is about what was asked: the one rule for every focused tool's answer. The
// definitions an answer presents are read from CodeGraph 1.6.1's text (node's sections, the heads
// of callers, callees and impact, query's rows) and each is held against the asked name: its
// name is the asked one's last part; a qualified name (`Registration::poll_ready`,
// `Inventory.add`, `module.func`) is matched by the definition's qualified name ending in it
// (on a separator) or by its file's path naming every qualifier (Rust modules, Python packages);
// a `file` by the definition's path. CodeGraph's own matcher lets `Runtime.block_on` take
// `LocalRuntime::block_on` and answers a `file` that holds none of N definitions with all N;
// its search ranks names that merely look alike. A node answer shows no qualified name: its
// definition is another scope's only when the scope search (lib/contract/scopes.js, begun with
// the call) read the whole tree and its file has no line that may open the scope; what is not
// sure is never said. A qualified name the index lacks is looked for in the source by its last
// part, in its scope. The facts are worded by lib/words/answer-notes.js; where the source defines
// the asked one comes from the source search (lib/api/blind-spots.js's definitionsOf).

const path = require("node:path");
const { FAMILY_EXTENSIONS, cutByBound, isScannableName } = require("../contract/definitions.js");
const { RELATION_HEAD } = require("../contract/call-sites.js");
const { DEFAULT_INDEX_DIR } = require("../contract/index-dir.js");
const { scopeScan } = require("../contract/scopes.js");
const { notFoundName } = require("./blind-spots.js");
const { begun } = require("./source-search.js");

/** Rust path prefixes that name no module of their own (CodeGraph's `RUST_PATH_PREFIXES`). */
const NO_MODULE = new Set(["crate", "super", "self"]);

/** node's section title: `**calculateTotal** (function)`, and its location line. */
const NODE_TITLE = /^\*\*(.+?)\*\* \(([\w ]+)\)$/u;
const NODE_LOCATION = /^\*\*Location:\*\* (.+?):(\d+)$/u;
/** node's head when it answers with several definitions: `**32 definitions named "save"**` (it lists at most 29). */
const NODE_COUNT = /^\*\*(\d+) definitions named "/mu;
/** callers', callees' and impact's head with several: `Callers of "add" — 2 distinct definitions (narrow with --file):`. */
const RELATION_COUNT = /^(?:Callers of|Callees of|Impact of changing) ".*" — (\d+) distinct definitions/mu;
/** node's list of definitions it did not print in full: ``- `poll` (method) — src/a.rs:12``. */
const NODE_LISTED = /^- `(.+?)` \([\w ]+\) — (.+?):(\d+)$/u;
/** A query result's row and its location: `method      poll_ready` / `  src/a.rs:144`. */
const QUERY_ROW = /^[a-z_]+ {2,}(\S+)$/u;
const QUERY_LOCATION = /^ {2}(\S.*?):(\d+)$/u;
const RELATIONS = new Set(["callers", "callees", "impact"]);

/** The parts of a written name: `crate::io::Registration::poll_ready` → its scopes and last part. */
const partsOf = (name) =>
  name
    .replace(/<[^<>]*>/gu, "") // `Vec<T>::push`: generics name no scope
    .split(/::|[./#]/u)
    .filter((p) => p.length > 0);
const isQualified = (name) => partsOf(name).length > 1;
/** The last part of a written name (`Inventory.add` → `add`). */
const lastPart = (name) => partsOf(name).at(-1) ?? name;
/** The scopes a qualified name writes, without Rust's `crate`/`super`/`self`. */
const scopesOf = (name) =>
  partsOf(name)
    .slice(0, -1)
    .filter((p) => !NO_MODULE.has(p));
/** A name with its scopes joined by `.`, Rust's `crate`/`super`/`self` left out. */
const canonical = (name) => [...scopesOf(name), lastPart(name)].join(".");

/** `--name=value` of a command description's options, or undefined. */
function optionValue(command, name) {
  const prefix = `--${name}=`;
  const found = (command.options ?? []).find((o) => typeof o === "string" && o.startsWith(prefix));
  return found?.slice(prefix.length);
}

/**
 * A path as the index writes it and one asked for name the same file: CodeGraph's own rule (the
 * asked text within the path, any case), or the asked one a longer spelling of the indexed one.
 */
function sameFile(at, asked) {
  const norm = (p) => p.replace(/\\/gu, "/").replace(/^\.\//u, "").toLowerCase();
  const a = norm(at);
  const b = norm(asked);
  return a.includes(b) || b.endsWith(`/${a}`);
}

/** The definitions `text` presents, by subcommand: `[{ name, qualified?, path, line }]`. */
function presented(sub, text) {
  const lines = text.split("\n");
  const defs = [];
  if (sub === "node") {
    let title = null;
    for (const line of lines) {
      const t = NODE_TITLE.exec(line);
      if (t) title = t[1];
      const at = NODE_LOCATION.exec(line);
      if (at && title !== null) {
        defs.push({ name: title, path: at[1], line: Number(at[2]) });
        title = null;
      }
      const listed = NODE_LISTED.exec(line);
      if (listed) defs.push({ name: listed[1], path: listed[2], line: Number(listed[3]) });
    }
  } else if (RELATIONS.has(sub)) {
    for (const line of lines) {
      const h = RELATION_HEAD.exec(line);
      if (h) defs.push({ name: lastPart(h[2]), qualified: h[2], path: h[3], line: Number(h[4]) });
    }
  } else if (sub === "query") {
    for (let i = 0; i + 1 < lines.length; i += 1) {
      const row = QUERY_ROW.exec(lines[i]);
      const at = row && QUERY_LOCATION.exec(lines[i + 1]);
      if (at) defs.push({ name: row[1], path: at[1], line: Number(at[2]) });
    }
  }
  return defs;
}

/** The extensions the scope search reads (lib/contract/scopes.js): a file of another is never known to lack a scope. */
const SCANNED = new Set(Object.values(FAMILY_EXTENSIONS).flat());

/**
 * Whether `def` may sit in the scope the scope search looked for: true when a line of its file
 * at or before it may open the scope, false when the search read the whole tree and its file
 * has none, null when it cannot tell (no search, one a bound cut, a file it does not read).
 */
function mayOpen(opens, def) {
  if (!opens) return null;
  const lines = opens.get(def.path);
  if (lines?.some((l) => l <= def.line)) return true;
  return SCANNED.has(path.extname(def.path).slice(1).toLowerCase()) ? false : null;
}

/**
 * Whether definition `def` is the one `asked` names: true, false, or null when the answer does
 * not say enough to tell (a qualified name against a node answer, which shows no qualifier, and
 * no scope search that rules its file out). `opens`: the scope search's lines (scopeOpens).
 */
function isAsked(asked, def, opens = null) {
  if (def.name !== lastPart(asked)) return false;
  if (!isQualified(asked)) return true;
  if (def.qualified !== undefined) {
    const got = canonical(def.qualified);
    const want = canonical(asked);
    if (got === want || got.endsWith(`.${want}`)) return true;
  }
  const scopes = scopesOf(asked);
  if (scopes.length > 0 && scopes.every((scope) => pathNames(def.path, scope))) return true;
  if (def.qualified !== undefined) return false;
  // No qualifier shown: a file that opens no scope of the name the qualifier ends with holds none of its definitions.
  return mayOpen(opens, def) === false ? false : null;
}

/** Whether `file`'s path names `scope`: a folder or a file, with or without its extension (`src/runtime/context.rs` names `context`). */
const pathNames = (file, scope) =>
  file
    .split("/")
    .filter(Boolean)
    .some((s) => s === scope || s.replace(/\.[^.]+$/u, "") === scope);

/** A file's module path: `django/contrib/auth/__init__.py` → `django/contrib/auth`, `src/a/mod.rs` → `src/a`. */
const modulePath = (file) => file.replace(/\.[^./]+$/u, "").replace(/\/(?:__init__|mod|index)$/u, "");

/**
 * Whether `def` (`{ name, qualified?, path }`) is exactly what the qualified `asked` writes, not
 * only a definition in its scope: its module's path ends with the qualifier
 * (`django.contrib.auth.authenticate` is `django/contrib/auth/__init__.py`'s function, not
 * `ModelBackend.authenticate` of `django/contrib/auth/backends.py`), or with all but its last
 * part, the last then its class (`models.Model.save`). False for a plain name.
 */
function isExactly(asked, def) {
  if (!isQualified(asked) || def.name !== lastPart(asked)) return false;
  const scopes = scopesOf(asked);
  const module = modulePath(def.path).split("/");
  const endsWith = (parts) => parts.every((p, i) => module[module.length - parts.length + i] === p);
  const owner = def.qualified === undefined ? null : scopesOf(def.qualified.replace(/::/gu, "."));
  if (endsWith(scopes)) return owner === null || owner.length === 0;
  return owner !== null && owner.at(-1) === scopes.at(-1) && endsWith(scopes.slice(0, -1));
}

/**
 * What `command`'s answer `text` is about, where it is another symbol or file than asked:
 * `{ otherSymbol?: { asked, got, at } (another name: node's closest one), otherFile?: { asked, file, defs, count }, otherQualifier?: { asked, defs, of }, unnamedHits?: {
 * asked, count } }` (`defs`: the answer's definitions that are not the asked one; `count`, `of`:
 * how many it has, some of them perhaps unnamed). `{}` when the answer is about the asked symbol, or cannot be read. `opens`: the
 * scope search's lines (scopeOpens), for an answer that shows no qualified name.
 */
function subjectFacts(command, text, opens = null) {
  try {
    const sub = command?.subcommand;
    const asked = command?.positional;
    if (typeof text !== "string" || typeof asked !== "string" || asked === "") return {};
    // A qualified name the index lacks: where the source defines it in its scope is looked for.
    if (isQualified(asked) && notFoundName(command, text) === asked) return { qualifiedMissing: { asked } };
    const defs = presented(sub, text);
    if (defs.length === 0) return {};
    if (sub === "query") {
      const want = lastPart(asked).toLowerCase();
      return defs.some((d) => d.name.toLowerCase().includes(want))
        ? {}
        : { unnamedHits: { asked, count: defs.length } };
    }
    // Another name altogether: node's closest name when the index has none by the one asked.
    const named = defs.filter((d) => d.name === lastPart(asked));
    if (named.length === 0) {
      if (sub !== "node") return {}; // CodeGraph 1.6.1's relations never answer another name
      const [{ name, path, line }] = defs;
      return { otherSymbol: { asked, got: name, at: { path, line } } };
    }
    const facts = {};
    const file = optionValue(command, "file");
    // node names at most 29 of a name's definitions; its head, like the relations', counts them all.
    // (An answer cut at its caps may name fewer than its head counts.)
    const counted = (sub === "node" ? NODE_COUNT : RELATION_COUNT).exec(text)?.[1];
    const count = Math.max(defs.length, Number(counted ?? 0));
    if (file && !defs.some((d) => sameFile(d.path, file))) facts.otherFile = { asked, file, defs, count };
    if (isQualified(asked)) {
      const other = named.filter((d) => isAsked(asked, d, opens) === false);
      if (other.length > 0) facts.otherQualifier = { asked, defs: other, of: count };
    }
    return facts;
  } catch {
    return {}; // a description that cannot be read: nothing to add
  }
}

/**
 * The names whose definitions in the source the note needs, for `facts`: the asked name's last
 * part, and for a qualified one the scope it names last (`Registration` of
 * `Registration::poll_ready`). Empty when the answer is about the asked symbol, or has it among others.
 */
function askedParts(facts) {
  // Only some of the answer's definitions are another symbol: the asked one is among the others.
  const someOther = facts.otherQualifier && facts.otherQualifier.defs.length < facts.otherQualifier.of;
  const asked =
    facts.otherFile?.asked ??
    (someOther ? undefined : facts.otherQualifier?.asked) ??
    facts.unnamedHits?.asked ??
    facts.qualifiedMissing?.asked;
  if (asked === undefined) return [];
  const scope = facts.otherQualifier || facts.qualifiedMissing ? scopesOf(asked).at(-1) : undefined;
  return [lastPart(asked), ...(scope ? [scope] : [])];
}

/**
 * Whether a source definition (`{ path, line }`) of `name` is where `facts` says the asked one
 * may be: not one the answer shows; in `file` when one was asked; after a qualified name, one of
 * its last part in a file that may open its scope there (when the scope search can tell).
 */
function whereAsked(facts, d, name, opens = null) {
  const shown = [...(facts.otherFile?.defs ?? []), ...(facts.otherQualifier?.defs ?? [])];
  if (shown.some((s) => sameFile(s.path, d.path) && s.line === d.line)) return false;
  if (facts.otherFile) return sameFile(d.path, facts.otherFile.file);
  if (facts.qualifiedMissing) {
    // The last part's definitions in the scope asked (by their path, or a file that opens it before them).
    const { asked } = facts.qualifiedMissing;
    return name === lastPart(asked) && (isAsked(asked, { name, path: d.path }) === true || mayOpen(opens, d) === true);
  }
  if (facts.otherQualifier && opens && name === lastPart(facts.otherQualifier.asked)) return mayOpen(opens, d) === true;
  return true;
}

/** The name a command asks about, for the early source search: `[last part, last scope]` of a qualified one, else `[]`. */
function qualifiedParts(command) {
  const asked = command?.positional;
  if (typeof asked !== "string" || !isQualified(asked)) return [];
  if (!["node", "query", ...RELATIONS].includes(command.subcommand)) return [];
  const scope = scopesOf(asked).at(-1);
  return [lastPart(asked), ...(scope ? [scope] : [])];
}

/**
 * The search for the lines that may open the scope `command`'s qualified name ends with (node,
 * callers, callees, impact), begun while CodeGraph answers: `{ scope, found, end }` (`found`: a
 * promise of the scan's outcome, null when it failed), or null (no qualified name, no `scan`).
 */
function scopeSearchWhileRunning(command, cwd, scan) {
  try {
    const asked = command?.positional;
    if (typeof scan !== "function" || typeof asked !== "string" || !isQualified(asked)) return null;
    if (command.subcommand !== "node" && !RELATIONS.has(command.subcommand)) return null;
    const scope = scopesOf(asked).at(-1);
    if (!isScannableName(scope)) return null;
    return { scope, ...begun((signal) => scan(cwd, scopeScan(scope), signal)) };
  } catch {
    return null; // a description that cannot be read: nothing begun
  }
}

/**
 * What the scope search found: `Map<path, lines[]>` of the lines that may open the scope, or
 * null when it cannot rule a file out (none begun, it failed, a bound or its matches cut it, or
 * it skipped the index directory the answer did not use).
 */
async function scopeOpens(search, indexDir) {
  if (!search) return null;
  if (path.basename(indexDir ?? DEFAULT_INDEX_DIR) !== DEFAULT_INDEX_DIR) return null;
  const found = await search.found;
  if (!found || cutByBound(found.stopped) || found.stopped === "matches" || !Array.isArray(found.matches)) return null;
  const opens = new Map();
  for (const m of found.matches) opens.set(m.path, [...(opens.get(m.path) ?? []), m.line]);
  return opens;
}

module.exports = {
  askedParts,
  isAsked,
  isExactly,
  isQualified,
  lastPart,
  pathNames,
  optionValue,
  presented,
  qualifiedParts,
  sameFile,
  scopeOpens,
  scopeSearchWhileRunning,
  subjectFacts,
  whereAsked,
};
