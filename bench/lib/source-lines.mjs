// The bench's own reading of a source file, independent of the product and of CodeGraph: each
// line with its comments and string contents blanked (so a name found there is code), and where a
// named definition starts and ends (braces for Rust and TypeScript/JavaScript, indentation for
// Python). Small and lenient on purpose: it serves bench/lib/claims.mjs to judge the product's own
// "X at file:line in Y", where a miss must mean the product was wrong, not this reader.

const LANGS = { rs: "rust", py: "python", ts: "ts", tsx: "ts", js: "ts", mjs: "ts", cjs: "ts" };

/** The language of `file` by its extension, or null. */
export const languageOf = (file) => LANGS[file.split(".").at(-1)] ?? null;

/** Blanks `[from, to)` of `chars` (keeps newlines so lines stay lines). */
function blank(chars, from, to) {
  for (let i = from; i < to; i++) if (chars[i] !== "\n") chars[i] = " ";
}

/** Where a string that opens at `i` ends (the index after its closing quote). */
function stringEnd(text, i, quote) {
  let j = i + quote.length;
  while (j < text.length) {
    if (text[j] === "\\") j += 2;
    else if (text.startsWith(quote, j)) return j + quote.length;
    else if (quote.length === 1 && quote !== "`" && text[j] === "\n") return j;
    else j++;
  }
  return j;
}

/** `text` with comments and string contents blanked, for `lang`; the result has the same length. */
export function codeOnly(text, lang) {
  const chars = text.split(""); // UTF-16 units, as the indexes below
  const s = text;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    const two = s.slice(i, i + 2);
    if (lang !== "python" && two === "//") {
      const end = s.indexOf("\n", i);
      blank(chars, i, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end;
    } else if (lang !== "python" && two === "/*") {
      const end = s.indexOf("*/", i + 2);
      const stop = end < 0 ? s.length : end + 2;
      blank(chars, i, stop);
      i = stop;
    } else if (lang === "python" && c === "#") {
      const end = s.indexOf("\n", i);
      blank(chars, i, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end;
    } else if (lang === "rust" && /^r#*"/u.test(s.slice(i, i + 8)) && !/[\w]/u.test(s[i - 1] ?? "")) {
      const hashes = /^r(#*)"/u.exec(s.slice(i, i + 8))[1];
      const close = `"${hashes}`;
      const end = s.indexOf(close, i + 2 + hashes.length);
      const stop = end < 0 ? s.length : end + close.length;
      blank(chars, i + 1, stop - 1);
      i = stop;
    } else if (lang === "rust" && c === "'") {
      // A char literal ('a', '\n', '\u{1F600}'), else a lifetime ('a, 'static): left as code.
      const m = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/u.exec(s.slice(i, i + 12));
      if (m) {
        blank(chars, i + 1, i + m[0].length - 1);
        i += m[0].length;
      } else i++;
    } else if (lang === "python" && (s.startsWith('"""', i) || s.startsWith("'''", i))) {
      const q = s.slice(i, i + 3);
      const stop = stringEnd(s, i, q);
      blank(chars, i + 3, stop - 3);
      i = stop;
    } else if (c === '"' || (c === "'" && lang !== "rust") || (c === "`" && lang === "ts")) {
      const stop = stringEnd(s, i, c);
      blank(chars, i + 1, Math.max(i + 1, stop - 1));
      i = stop;
    } else i++;
  }
  return chars.join("");
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** Whether `code` (one code-only line) holds `name` as a whole identifier. */
export const codeHas = (code, name) => new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, "u").test(code);

/** Lines that may start a definition named `name`, per language. */
function startPattern(lang, name) {
  const n = escapeRegExp(name);
  if (lang === "python")
    return new RegExp(`^\\s*(?:(?:async\\s+)?(?:def|class)\\s+${n}\\b|${n}\\s*(?::[^=]*)?=(?!=))`, "u");
  if (lang === "rust")
    return new RegExp(
      `\\b(?:fn|struct|enum|trait|type|mod|const|static|union)\\s+${n}\\b|macro_rules!\\s*${n}\\b|^\\s*impl\\b.*\\b${n}\\b|^\\s*(?:pub(?:\\([^)]*\\))?\\s+)?${n}\\s*:(?!:)`,
      "u",
    );
  return new RegExp(
    `\\b(?:function\\*?|class|interface|type|enum|namespace|const|let|var)\\s+${n}\\b|^\\s*(?:(?:public|private|protected|static|readonly|async|override|abstract|declare|get|set)\\s+)*\\*?${n}\\s*(?:[(<=:]|\\?\\s*[(:])`,
    "u",
  );
}

/** The last line (1-based) of a Rust definition that starts at `start`: its braces, or its `;`. */
function braceEnd(code, start) {
  let depth = 0;
  let opened = false;
  let other = 0;
  for (let l = start; l <= code.length; l++) {
    for (const ch of code[l - 1]) {
      if (ch === "{") {
        depth++;
        opened = true;
      } else if (ch === "}") depth--;
      else if (ch === "(" || ch === "[") other++;
      else if (ch === ")" || ch === "]") other--;
      else if (ch === ";" && depth === 0 && other === 0 && !opened) return l;
      if (opened && depth === 0) return l;
    }
  }
  return code.length;
}

const indentOf = (x) => x.length - x.trimStart().length;

/**
 * The last line (1-based) of a TypeScript/JavaScript definition that starts at `start`: where its
 * brackets are all closed and the next code line is no deeper than the start and does not go on
 * with it (formatted code: a parameter's object type has braces too, so braces alone cannot say).
 */
function formattedEnd(code, start) {
  const base = indentOf(code[start - 1]);
  let depth = 0;
  for (let l = start; l <= code.length; l++) {
    for (const ch of code[l - 1]) {
      if ("{([".includes(ch)) depth++;
      else if ("})]".includes(ch)) depth--;
    }
    if (depth > 0) continue;
    const line = code[l - 1].trim();
    const nextAt = code.findIndex((x, i) => i >= l && x.trim());
    if (nextAt < 0) return l;
    const next = code[nextAt];
    const goesOn =
      /(?:=>|=|,|\(|:|\?|\||&|\+|-|\*|\/|<|\.)$/u.test(line) || /^(?:[.?:)\]}|&=+>]|=>)/u.test(next.trim());
    if (!goesOn && indentOf(next) <= base) return l;
  }
  return code.length;
}

/** The last line (1-based) of a Python definition whose `def`/`class` is at `start`. */
function indentEnd(code, start) {
  const indent = (x) => x.length - x.trimStart().length;
  const base = indent(code[start - 1]);
  let parens = 0;
  let end = start;
  for (let l = start; l <= code.length; l++) {
    const line = code[l - 1];
    if (l > start && parens === 0 && line.trim() && indent(line) <= base) break;
    for (const ch of line) {
      if ("([{".includes(ch)) parens++;
      else if (")]}".includes(ch)) parens--;
    }
    if (line.trim()) end = l;
  }
  return end;
}

/**
 * The ranges `{ start, end }` (1-based, inclusive) of every definition named `name` in the file
 * whose code-only lines are `code` (a qualified name's last part).
 */
export function definitionRanges(code, lang, name) {
  const last = name.split(/::|\./u).at(-1);
  const pattern = startPattern(lang, last);
  const ranges = [];
  code.forEach((line, i) => {
    if (!pattern.test(line)) return;
    const start = i + 1;
    const end =
      lang === "python" ? indentEnd(code, start) : lang === "rust" ? braceEnd(code, start) : formattedEnd(code, start);
    ranges.push({ start, end });
  });
  return ranges;
}

/** A file's text read for the claims: its code-only lines and line count (a last line without "\n" counts). */
export function readSource(text, file) {
  const lang = languageOf(file);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const code = lang ? codeOnly(text, lang).split("\n").slice(0, lines.length) : lines;
  return { lang, lines, code, count: lines.length };
}
