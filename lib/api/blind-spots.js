// Where CodeGraph's index is blind: when an answer says a name is not there (node's "not found"
// or its closest name instead, callers/callees/impact's "not found", query's "no results",
// explore's "no relevant code", or an explore answer that never mentions a name the request
// asked about), the workspace's source is searched for a definition of that name (the runner's
// bounded `scanSource`, with lib/contract/definitions.js's patterns and bounds), and each one
// found is given with its file:line and, where it is known, why the index lacks it: inside a Rust
// macro block, a file over CodeGraph's size limit, far into a very large TypeScript or JavaScript
// file, a file written after the index. Nothing is said when nothing is found: a scan that finds
// nothing proves nothing. Worded by lib/words/blind-spots.js.

const fsp = require("node:fs/promises");
const path = require("node:path");
const {
  CODEGRAPH_MAX_FILE_BYTES,
  SCAN_LIMITS,
  definitionScan,
  isScannableName,
} = require("../contract/definitions.js");
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

/**
 * The names `command`'s answer `text` (CodeGraph 1.6.1's shapes) says the index lacks: the quoted
 * one of a not-found answer; node's asked name when it answered with another (`facts.otherSymbol`,
 * lib/api/answer-notes.js); an explore request's code-like names its answer never mentions.
 */
function missingNames(command, text, facts = {}) {
  const sub = command?.subcommand;
  const asked = typeof command?.positional === "string" ? command.positional : undefined;
  if (typeof text !== "string" || !Object.hasOwn(NOT_FOUND, sub)) return [];
  if (facts.otherSymbol) return firstNames([facts.otherSymbol.asked]);
  if (sub !== "explore") {
    const quoted = NOT_FOUND[sub].exec(text)?.[1];
    return quoted === undefined ? [] : firstNames([quoted]);
  }
  // explore: "No relevant code found" quotes the whole request; any answer may leave a name out.
  if (asked === undefined) return [];
  const answer = text.split(asked).join(""); // its echo of the request ("**Exploration: …**") is no mention
  const words = [...asked.matchAll(QUALIFIED)].map((m) => m[0]);
  return firstNames(words.filter((w) => codeLike(w, asked) && !answer.includes(w)));
}

/**
 * The Rust macro invocation whose block holds line `line` (1-based) of `source` (`cfg_rt`,
 * `pin_project`), or null: braces, brackets and parentheses are followed from the top, skipping
 * comments, strings and character literals; a block opened right after `name!` is a macro's.
 */
function enclosingMacro(source, line) {
  const stack = [];
  let row = 1;
  let i = 0;
  const n = source.length;
  while (i < n && row < line) {
    const c = source[i];
    if (c === "\n") row += 1;
    if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i += 1;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const skipped = source.slice(i, end === -1 ? n : end + 2);
      row += skipped.split("\n").length - 1;
      i += skipped.length;
      continue;
    }
    if (c === '"') {
      const raw = /r(#*)$/u.exec(source.slice(Math.max(0, i - 8), i));
      const close = raw ? `"${raw[1]}` : null;
      let j = i + 1;
      while (j < n && (close ? !source.startsWith(close, j) : source[j] !== '"'))
        j += !close && source[j] === "\\" ? 2 : 1;
      row += source.slice(i, j).split("\n").length - 1;
      i = j + (close ? close.length : 1);
      continue;
    }
    const char = /^'(?:\\.|[^\\'])'/u.exec(source.slice(i, i + 4));
    if (c === "'" && char) {
      i += char[0].length;
      continue;
    }
    if (c === "{" || c === "(" || c === "[") {
      const before = source.slice(Math.max(0, i - 120), i);
      stack.push(/([A-Za-z_]\w*)!\s*$/u.exec(before)?.[1] ?? null);
    } else if ((c === "}" || c === ")" || c === "]") && stack.length > 0) {
      stack.pop();
    }
    i += 1;
  }
  return stack.findLast((m) => m !== null) ?? null;
}

/**
 * Why CodeGraph 1.6.1 lacks the definition at `line` of `file` (its `source`, split into `lines`,
 * and its `bytes`), where known.
 */
function reasonFor(file, { source, lines }, line, bytes) {
  if (bytes > CODEGRAPH_MAX_FILE_BYTES) return { reason: "file-too-large", bytes };
  const extension = path.extname(file).toLowerCase();
  if (extension === ".rs" && source !== null) {
    const macro = enclosingMacro(source, line);
    if (macro) return { reason: "macro-block", macro };
  }
  if (SCRIPT_EXTENSIONS.has(extension) && line > LARGE_FILE_LINE && source !== null) {
    return { reason: "large-file", lines: lines.length };
  }
  return { reason: null };
}

/** A line that is all comment (`//`, `///`, `#`, ` * `, `/*`): a definition there is an example, not code. */
const isCommentLine = (lineText) => /^\s*(?:\/\/|#(?!\[)|\*|\/\*)/u.test(lineText);

const mentions = (lineText, name) =>
  new RegExp(`(?<![\\w$])${name.replace(/\$/gu, "\\$")}(?![\\w$])`, "u").test(lineText);

/**
 * The definitions the index lacks for `command`'s answer `text` in `cwd`: `[{ name, path, line,
 * reason, macro?, lines?, bytes?, changed, more? }]`, at most MAX_DEFINITIONS_PER_NAME per name
 * (`more` on a name's last one when the source has, or may have, more of them), from
 * `scan` (the runner's `scanSource`); `changed` when the definition's file was written after the
 * index (`indexWrittenAt(indexDir)`, ms or null). Empty when no name is missing, the scan fails or
 * finds none.
 */
async function unindexedDefinitions(command, text, cwd, { scan, facts, indexDir }) {
  const names = missingNames(command, text, facts);
  if (names.length === 0 || typeof scan !== "function") return [];
  let found;
  try {
    found = await scan(cwd, definitionScan(names, { indexDir }));
  } catch {
    return []; // the scan is a help, never a failure of the answer
  }
  const matches = Array.isArray(found?.matches) ? found.matches : [];
  if (matches.length === 0) return [];
  const indexMs = await indexWrittenAt(indexDir).catch(() => null);
  const perName = new Map(names.map((name) => [name, []]));
  const sources = new Map();
  for (const m of matches) {
    const file = path.join(cwd, m.path);
    if (!sources.has(m.path)) {
      const small = m.fileBytes <= SCAN_LIMITS.maxFileBytes;
      const [source, stat] = await Promise.all([
        small ? fsp.readFile(file, "utf8").catch(() => null) : null,
        fsp.stat(file).catch(() => null),
      ]);
      const changed = indexMs !== null && stat !== null && stat.mtimeMs > indexMs;
      // Split once per file: several matches, the line count and the macro scan read it.
      sources.set(m.path, { source, lines: source?.split("\n") ?? [], changed });
    }
    const read = sources.get(m.path);
    const lineText = read.lines[m.line - 1] ?? "";
    const name = isCommentLine(lineText) ? undefined : names.find((n) => mentions(lineText, n));
    if (!name) continue;
    const defs = perName.get(name);
    if (defs.length >= MAX_DEFINITIONS_PER_NAME) {
      defs.at(-1).more = true;
      continue;
    }
    defs.push({
      name,
      path: m.path,
      line: m.line,
      ...reasonFor(file, read, m.line, m.fileBytes),
      changed: read.changed,
    });
  }
  // A scan that stopped at its matches may have left more of any name unread.
  if (found.stopped === "matches") for (const defs of perName.values()) if (defs.length) defs.at(-1).more = true;
  return [...perName.values()].flat();
}

module.exports = { MAX_NAMES, enclosingMacro, isCommentLine, missingNames, unindexedDefinitions };
