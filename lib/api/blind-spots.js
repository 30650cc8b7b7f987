// Where CodeGraph's index is blind: when an answer says a name is not there (node's "not found"
// or its closest name instead, callers/callees/impact's "not found", query's "no results",
// explore's "no relevant code", or an explore answer that never mentions a name the request
// asked about), the workspace's source is searched for a definition of that name (the runner's
// bounded `scanSource`, with lib/contract/definitions.js's patterns and bounds; the search begun
// with the call when it looked for the same names, lib/api/source-search.js), and each one found
// is given with its file:line and, where it is known, why the index lacks it: inside a Rust
// macro block, a file over CodeGraph's size limit, far into a very large TypeScript or JavaScript
// file, a file written after the index. The runner reads the files and says each match's line,
// macro block, line count and write time: nothing here reads the repository. Nothing is said
// when nothing is found (a scan that finds nothing proves nothing), but a scan a bound cut says
// how far it read. Worded by lib/words/blind-spots.js.

const path = require("node:path");
const { CODEGRAPH_MAX_FILE_BYTES, cutByBound, definitionScan, isScannableName } = require("../contract/definitions.js");
const { searched, shortName } = require("./source-search.js");
const { indexWrittenAt } = require("./staleness.js");

/** At most this many names of one request are looked for, and definitions of one name named. */
const MAX_NAMES = 3;
const MAX_DEFINITIONS_PER_NAME = 3;
/** A TypeScript or JavaScript definition past this line of a file is "far into a very large file". */
const LARGE_FILE_LINE = 2000;
const SCRIPT_EXTENSIONS = new Set([".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]);
/** A name as a request writes it: an identifier, perhaps qualified (`Inventory.add`, `task::spawn`). */
const QUALIFIED = /[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*/gu;

/** The answers that say a name is not in the index, by subcommand: the name they quote. */
const NOT_FOUND = {
  node: /^Symbol "(.+)" not found in the codebase/mu,
  callers: /^ℹ Symbol "(.+?)" not found/mu,
  callees: /^ℹ Symbol "(.+?)" not found/mu,
  impact: /^ℹ Symbol "(.+?)" not found/mu,
  query: /^ℹ No results found for "(.+)"/mu,
  explore: /^No relevant code found for "(.+)"/mu,
};

/** Whether `word` of an explore request reads as code, not prose: snake_case, camelCase, or called. */
const codeLike = (word, request) =>
  /[a-z0-9]_[a-z0-9]/iu.test(word) || /[a-z0-9][A-Z]/u.test(word) || request.includes(`${word}(`);

/** Unique plain identifiers, at most MAX_NAMES, in order (a qualified name is never guessed at). */
const firstNames = (names) => [...new Set(names.filter(isScannableName))].slice(0, MAX_NAMES);

/** The code-like names of an explore request (at most MAX_NAMES; a qualified one's last part), which its answer may leave out. */
function requestNames(request) {
  if (typeof request !== "string") return [];
  const words = [...request.matchAll(QUALIFIED)].map((m) => m[0]);
  // A qualified word (`Effect.runPromise`, `Runtime::block_on`) by its last part: the name a definition has.
  return firstNames(words.filter((w) => codeLike(w, request)).map(shortName));
}

/** The names a not-found answer to `command` can be about, known before it answers: its own name. */
function askedNames(command) {
  const sub = command?.subcommand;
  if (!Object.hasOwn(NOT_FOUND, sub)) return [];
  return sub === "explore" ? requestNames(command.positional) : firstNames([command.positional]);
}

/** The name a not-found answer (node, callers, callees, impact, query) quotes, or undefined. */
function notFoundName(command, text) {
  const sub = command?.subcommand;
  if (typeof text !== "string" || sub === "explore" || !Object.hasOwn(NOT_FOUND, sub)) return undefined;
  return NOT_FOUND[sub].exec(text)?.[1];
}

/**
 * The names `command`'s answer `text` (CodeGraph 1.6.1's shapes) says the index lacks: the quoted
 * one of a not-found answer; node's asked name when it answered with another (`facts.otherSymbol`,
 * lib/api/answer-subject.js); an explore request's code-like names its answer never mentions.
 */
function missingNames(command, text, facts = {}) {
  const sub = command?.subcommand;
  const asked = typeof command?.positional === "string" ? command.positional : undefined;
  if (typeof text !== "string" || !Object.hasOwn(NOT_FOUND, sub)) return [];
  if (facts.otherSymbol) return firstNames([facts.otherSymbol.asked]);
  if (sub !== "explore") {
    const quoted = notFoundName(command, text);
    return quoted === undefined ? [] : firstNames([quoted]);
  }
  // explore: "No relevant code found" quotes the whole request; any answer may leave a name out.
  if (asked === undefined) return [];
  const answer = text.split(asked).join(""); // its echo of the request ("**Exploration: …**") is no mention
  return requestNames(asked).filter((w) => !answer.includes(w));
}

/**
 * Why CodeGraph 1.6.1 lacks the definition a match (the runner's facts: `path`, `line`,
 * `fileBytes`, `macro`, `fileLines`) is at, where known.
 */
function reasonFor(m) {
  if (m.fileBytes > CODEGRAPH_MAX_FILE_BYTES) return { reason: "file-too-large", bytes: m.fileBytes };
  if (typeof m.macro === "string") return { reason: "macro-block", macro: m.macro };
  const extension = path.extname(m.path).toLowerCase();
  if (SCRIPT_EXTENSIONS.has(extension) && m.line > LARGE_FILE_LINE && typeof m.fileLines === "number") {
    return { reason: "large-file", lines: m.fileLines };
  }
  return { reason: null };
}

/** A line that is all comment (`//`, `///`, `#`, ` * `, `/*`): a definition there is an example, not code. */
const isCommentLine = (lineText) => /^\s*(?:\/\/|#(?!\[)|\*|\/\*)/u.test(lineText);

const mentions = (lineText, name) =>
  new RegExp(`(?<![\\w$])${name.replace(/\$/gu, "\\$")}(?![\\w$])`, "u").test(lineText);

/**
 * The definitions the index lacks for `command`'s answer `text` in `cwd`: those of the names it
 * says the index lacks (missingNames), as definitionsOf gives them. Nothing when no name is missing.
 */
async function unindexedDefinitions(command, text, cwd, { scan, facts, indexDir, early }) {
  return definitionsOf(missingNames(command, text, facts), cwd, { scan, indexDir, early });
}

/**
 * Where the source defines `names` (plain identifiers) in `cwd`: `{ names, definitions: [{
 * name, path, line, reason, macro?, lines?, bytes?, changed, more? }], cut }`, at most
 * `most` (MAX_DEFINITIONS_PER_NAME; the scan's `maxMatches` may be raised) per name of those `keep(match, name)` takes (`more` on a name's last one when the
 * source has, or may have, more of them); `changed` when the definition's file was written after
 * the index (`indexWrittenAt(indexDir)`); `cut`: `{ stopped, filesScanned }` when a bound (its
 * time, its files or bytes) ended the scan before the end of the tree, and it found none (what it
 * did not read may hold one). From `early` (lib/api/source-search.js) when it looked for these
 * names, else a scan of its own (`scan`: the runner's `scanSource`).
 */
async function definitionsOf(
  names,
  cwd,
  { scan, indexDir, early, keep = () => true, most = MAX_DEFINITIONS_PER_NAME, maxMatches },
) {
  if (names.length === 0 || typeof scan !== "function") return { names, definitions: [], cut: null };
  let found = await searched(early, names, indexDir);
  if (!found || found.stopped === "matches") {
    const request = { ...definitionScan(names, { indexDir }), ...(maxMatches && { maxMatches }) };
    found = await scan(cwd, request).catch(() => null); // a help, never a failure
  }
  if (!found) return { names, definitions: [], cut: null };
  const matches = (Array.isArray(found.matches) ? found.matches : []).filter((m) => m.tags?.includes("defines"));
  const cut = cutByBound(found.stopped) ? { stopped: found.stopped, filesScanned: found.filesScanned } : null;
  if (matches.length === 0) return { names, definitions: [], cut };
  const indexMs = await indexWrittenAt(indexDir).catch(() => null);
  const perName = new Map(names.map((name) => [name, []]));
  for (const m of matches) {
    const lineText = typeof m.text === "string" ? m.text : "";
    const name = isCommentLine(lineText) ? undefined : names.find((n) => mentions(lineText, n));
    if (!name || !keep(m, name)) continue;
    const defs = perName.get(name);
    if (defs.length >= most) {
      defs.at(-1).more = true;
      continue;
    }
    const changed = indexMs !== null && typeof m.writtenMs === "number" && m.writtenMs > indexMs;
    defs.push({ name, path: m.path, line: m.line, ...reasonFor(m), changed });
  }
  // A scan that stopped at its matches may have left more of any name unread.
  if (found.stopped === "matches") for (const defs of perName.values()) if (defs.length) defs.at(-1).more = true;
  return { names, definitions: [...perName.values()].flat(), cut: null };
}

module.exports = {
  MAX_NAMES,
  askedNames,
  definitionsOf,
  isCommentLine,
  missingNames,
  notFoundName,
  reasonFor,
  unindexedDefinitions,
};
