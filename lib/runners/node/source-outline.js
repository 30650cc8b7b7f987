// The Node runner's outline of source files, the twin of crates/core/src/source_outline.rs: each
// file asked for (workspace-relative) opened with the workspace's rules (no link on the way, a
// regular file, bounded), its true line count, its language by extension, and its definitions
// from a lexer (source-lex.js, source-definitions.js), never from patterns over raw lines. Runs
// in the source worker. A file not read says why (`problem`); a bound that ended the request early
// says which (`cut`), the files outlined so far kept.

const fs = require("node:fs");
const path = require("node:path");
const { readRegularSync } = require("../../contract/files.js");
const {
  MAX_OUTLINE_FILE_BYTES,
  MAX_OUTLINE_PATHS,
  MAX_OUTLINE_TOTAL_BYTES,
} = require("../../contract/source-outline.js");
const { outlineDeadline, outlineLanguage } = require("../../contract/source-outline.js");
const { definitions } = require("./source-definitions.js");
const { LEXERS, lex, masked } = require("./source-lex.js");

/** How many lines `text` has: a last line without its newline counts, an empty end does not. */
function lineCount(text) {
  let count = 0;
  for (let k = text.indexOf("\n"); k !== -1; k = text.indexOf("\n", k + 1)) count += 1;
  return text === "" || text.endsWith("\n") ? count : count + 1;
}

/** What outlining `text` in `language` gives: `{ definitions, unbalanced? }`. */
function outlineText(text, language) {
  const lexer = LEXERS[language];
  if (!lexer) return { definitions: [] };
  const lexed = lex(text, lexer);
  const defs = definitions(lexer, lexed, text, masked(text, lexed.blanks));
  return lexed.unbalanced ? { definitions: defs, unbalanced: true } : { definitions: defs };
}

/** Why workspace-relative `rel` under `cwd` cannot be read (a tag), or its bytes. */
function readWorkspaceFile(cwd, rel) {
  if (typeof rel !== "string" || rel === "" || rel.includes("\0") || rel.startsWith("/") || /^[A-Za-z]:/u.test(rel))
    return { problem: "outside" };
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.length === 0 || parts.includes("..") || (process.platform === "win32" && rel.includes("\\")))
    return { problem: "outside" };
  let here = cwd;
  for (const [k, part] of parts.entries()) {
    here = path.join(here, part);
    let stat;
    try {
      stat = fs.lstatSync(here);
    } catch {
      return { problem: "missing" };
    }
    if (stat.isSymbolicLink()) return { problem: "link" };
    const last = k === parts.length - 1;
    if (!last && !stat.isDirectory()) return { problem: "missing" };
    if (last && !stat.isFile()) return { problem: "notRegular" };
    if (last && stat.size > MAX_OUTLINE_FILE_BYTES) return { problem: "tooLarge" };
  }
  try {
    const read = readRegularSync(here, MAX_OUTLINE_FILE_BYTES, { workspace: true });
    return read.more ? { problem: "tooLarge" } : { bytes: read.bytes };
  } catch (err) {
    return { problem: err?.code === "ELOOP" ? "link" : err?.code === "ENOENT" ? "missing" : "unreadable" };
  }
}

/**
 * The outlines of `request.paths` under `cwd` (lib/contract/source-outline.js has the bounds):
 * `{ files: [{ path, lines, language, definitions, problem?, unbalanced? }], cut? }`.
 * `cancel`: an Int32Array over shared memory whose first value, once non-zero, ends it.
 */
function outlineSource(cwd, request, cancel = null) {
  const started = Date.now();
  const deadlineMs = outlineDeadline(request);
  const paths = Array.isArray(request?.paths) ? request.paths : [];
  const out = { files: [] };
  let total = 0;
  for (const [k, rel] of paths.entries()) {
    const reason =
      k >= MAX_OUTLINE_PATHS
        ? "paths"
        : cancel && Atomics.load(cancel, 0) !== 0
          ? "cancelled"
          : Date.now() - started >= deadlineMs
            ? "deadline"
            : null;
    if (reason) {
      out.cut = { reason };
      break;
    }
    const language = outlineLanguage(rel);
    const read = readWorkspaceFile(cwd, rel);
    if (read.bytes && total + read.bytes.length > MAX_OUTLINE_TOTAL_BYTES) {
      out.cut = { reason: "bytes" };
      break;
    }
    const file = { path: String(rel), lines: 0, language, definitions: [] };
    if (read.problem) {
      out.files.push({ ...file, problem: read.problem });
      continue;
    }
    total += read.bytes.length;
    const text = read.bytes.toString("utf8");
    file.lines = lineCount(text);
    if (read.bytes.includes(0)) out.files.push({ ...file, problem: "binary" });
    else out.files.push({ ...file, ...outlineText(text, language) });
  }
  return out;
}

module.exports = { lineCount, outlineSource, outlineText };
