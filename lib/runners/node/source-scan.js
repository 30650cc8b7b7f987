// The Node runner's bounded source search, the twin of crates/core/src/source_scan.rs: the same
// walk (source-walk.js), the same bounds in the same order, the same result, each match with the
// same context when asked (source-context.js). A file with a NUL byte reports nothing; a file
// that cannot be read is skipped. Runs in the source worker (source-worker.js), never on the
// host's thread.
//
// Node differs: JavaScript's regular expressions backtrack, so a line is matched on its first
// MAX_MATCHED_CHARS characters (the addon's engine is linear in the line and reads it whole);
// where the optional `ignore` package is not installed, no `.gitignore` is read and the outcome
// says `gitignoreUnread: true`.

const { readRegularSync, writtenMs } = require("../../contract/files.js");
const { languageOfExtension } = require("../../contract/source-outline.js");
const { fileFacts, fileLines, prefix } = require("./source-context.js");
const { LEXERS } = require("./source-lex.js");
const { gitignoreReadable, shownPath, sourceFiles, stopper } = require("./source-walk.js");

/** A line is matched on at most this many characters (see the top comment). */
const MAX_MATCHED_CHARS = 4096;

function invalid(pattern, err) {
  return Object.assign(
    new Error(`CODEGRAPH_INVALID_REQUEST: invalid scan pattern ${JSON.stringify(pattern)}: ${err.message}`),
    { code: "CODEGRAPH_INVALID_REQUEST" },
  );
}

function compile(rules) {
  return rules.map((rule) => {
    try {
      return { extensions: rule.extensions.map((e) => e.toLowerCase()), regex: new RegExp(rule.pattern, "u") };
    } catch (err) {
      throw invalid(rule.pattern, err);
    }
  });
}

/**
 * A context's patterns compiled once, and what they say of one file's lines that `rule` (the
 * scan's) matched. In a language the lexer knows (and where everything closed), the tags and the
 * code check read each line with its comments and strings blanked, and the place comes from its
 * definitions (source-context.js).
 */
function contextOf(context) {
  const tags = context.tags.map((t) => ({ tag: t.tag, rules: compile(t.rules) }));
  const own = context.ownName ?? null;
  return (rule, extension, bytes, lineNumbers, stat) => {
    const text = bytes.toString("utf8");
    const { lines, count } = fileLines(text);
    const lexer = LEXERS[languageOfExtension(extension)];
    const facts = lexer ? fileFacts(text, lexer) : null;
    return lineNumbers.map((line) => {
      const whole = lines[line - 1] ?? "";
      const read = (facts ? facts.codeLine(line) : whole).slice(0, MAX_MATCHED_CHARS);
      const code = facts ? rule.regex.test(read) : null;
      const place = code ? facts.place(line, own) : {};
      // Absent rather than null, as the addon's object has them.
      const set = (key, value) => (value === null || value === undefined ? {} : { [key]: value });
      return {
        text: prefix(whole, context.lineChars),
        tags: tags
          .filter((t) => t.rules.some((r) => r.extensions.includes(extension) && r.regex.test(read)))
          .map((t) => t.tag),
        ...set("code", code),
        ...set("within", place.within),
        ...set("macroRules", place.macroRules),
        ...set("macro", place.macro),
        fileLines: count,
        writtenMs: writtenMs(stat),
      };
    });
  };
}

/**
 * Searches `cwd`'s source as `scan` says (lib/contract/ builds it): `{ matches: [{ path, line,
 * fileBytes, …context }], filesScanned, bytesScanned, filesTooLarge, ignoreFilesCut, stopped }`.
 * `cancel`: an Int32Array over shared memory whose first value, once non-zero, ends the scan.
 */
function scanSource(cwd, scan, cancel = null) {
  const started = Date.now();
  const rules = compile(scan.rules);
  const withContext = scan.context ? contextOf(scan.context) : null;
  const out = { matches: [], filesScanned: 0, bytesScanned: 0, filesTooLarge: 0, ignoreFilesCut: 0 };
  if (!gitignoreReadable()) out.gitignoreUnread = true;
  const state = {};
  const stop = stopper(started, scan.deadlineMs, cancel, state);
  for (const { abs, extension, stat } of sourceFiles(cwd, scan, stop, state)) {
    const rule = rules.find((r) => r.extensions.includes(extension));
    if (!rule) continue;
    if (stat.size > scan.maxFileBytes) {
      out.filesTooLarge += 1;
      continue;
    }
    if (out.filesScanned >= scan.maxFiles) {
      out.stopped = "files";
      break;
    }
    if (out.bytesScanned + stat.size > scan.maxTotalBytes) {
      out.stopped = "bytes";
      break;
    }
    let read;
    try {
      read = readRegularSync(abs, scan.maxFileBytes, { workspace: true });
    } catch {
      continue;
    }
    const { bytes } = read;
    out.filesScanned += 1;
    out.bytesScanned += bytes.length;
    if (bytes.includes(0)) continue;
    const lines = bytes.toString("utf8").split("\n");
    let found = [];
    for (let i = 0; i < lines.length; i += 1) {
      if (i % 256 === 255 && stop()) break;
      if (rule.regex.test(lines[i].slice(0, MAX_MATCHED_CHARS))) found.push(i + 1);
    }
    if (found.length === 0) continue;
    const room = scan.maxMatches - out.matches.length;
    const full = found.length > room;
    found = found.slice(0, room);
    const shown = shownPath(cwd, abs);
    const contexts = withContext ? withContext(rule, extension, bytes, found, read.stat) : [];
    for (const [i, line] of found.entries()) {
      out.matches.push({ path: shown, line, fileBytes: bytes.length, ...contexts[i] });
    }
    if (full) {
      out.stopped = "matches";
      break;
    }
  }
  out.ignoreFilesCut = state.ignoreFilesCut ?? 0;
  out.stopped ??= state.stopped;
  if (!out.stopped) delete out.stopped;
  return out;
}

module.exports = { scanSource };
