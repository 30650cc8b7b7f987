// A source file's tokens, for its outline and for telling code from text: the twin of
// crates/core/src/source_lex.rs, kept step for step alike (the shared corpus
// __test__/corpora/outline.json holds them to the same answers). It knows, per language, what is
// not code: line and block comments (nested in Rust), strings (Rust's raw `r#"…"#`, byte and
// character literals told from lifetimes; Python's prefixed and triple-quoted ones, the code in an
// f-string's braces; JavaScript's template literals with `${}` nested, regular expression
// literals where the previous token says one may start: source-lex-strings.js). Linear in the
// file: one pass; strings in code in strings nested deeper than MAX_NESTING give up (`unbalanced`).
//
// A token: `{ k: "id" | "p" | "s" | "n" | "lt", t (its text; "" for a literal), line, end (the
// line it ends on), from, to (offsets), first (the first token of its line, outside any string),
// logical (Python: it opens a logical line), up (the innermost open bracket around it, or -1),
// m (a bracket's match, or -1) }`. `blanks`: the [from, to) ranges that are comment or string.

const { PY_PREFIXES, strings } = require("./source-lex-strings.js");

/** Longest first: the punctuation read as one token. */
const PUNCT = {
  rust: ["->", "=>", "::"],
  python: ["->", "**", "//", "==", "!=", "<=", ">=", ":="],
  script: ["===", "!==", "...", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "+=", "-=", "++", "--"],
};

const isDigit = (c) => c >= 48 && c <= 57;
const isIdStart = (c, dollar) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128 || (dollar && c === 36);
const isIdChar = (c, dollar) => isIdStart(c, dollar) || isDigit(c);
const isSpace = (c) => c === 32 || c === 9 || c === 13 || c === 12;
const OPENS = "([{";
const CLOSES = ")]}";

class Lexer {
  constructor(text, language) {
    this.text = text;
    this.n = text.length;
    this.language = language;
    this.dollar = language === "script";
    this.tokens = [];
    this.blanks = [];
    this.brackets = [];
    this.i = 0;
    this.line = 1;
    this.lastLine = 0;
    this.inString = 0;
    this.continued = 0;
    this.unbalanced = false;
    /** The brackets a string's code may close: those opened inside it. */
    this.floor = 0;
  }

  at(k) {
    return k < this.n ? this.text.charCodeAt(k) : -1;
  }

  blank(from, to) {
    if (to > from) this.blanks.push([from, to]);
  }

  token(k, t, from, startLine) {
    const first = this.inString === 0 && startLine !== this.lastLine;
    const up = this.brackets.length > 0 ? this.brackets[this.brackets.length - 1] : -1;
    const logical = first && this.brackets.length === 0 && this.continued !== startLine;
    this.tokens.push({ k, t, line: startLine, end: this.line, from, to: this.i, first, logical, up, m: -1 });
    this.lastLine = this.line;
    return this.tokens.length - 1;
  }

  /** A string token whose text has been passed: blanked, its end line set. */
  ended(token, from) {
    this.blank(from, this.i);
    const t = this.tokens[token];
    t.end = this.line;
    t.to = this.i;
    this.lastLine = this.line;
  }

  lineComment() {
    const end = this.text.indexOf("\n", this.i);
    const to = end === -1 ? this.n : end;
    this.blank(this.i, to);
    this.i = to;
  }

  blockComment(nested) {
    const from = this.i;
    let depth = 0;
    let open = true;
    while (this.i < this.n) {
      const c = this.at(this.i);
      const next = this.at(this.i + 1);
      if (c === 47 && next === 42 && (nested || depth === 0)) {
        depth += 1;
        this.i += 2;
      } else if (c === 42 && next === 47) {
        depth = Math.max(0, depth - 1);
        this.i += 2;
        if (depth === 0) {
          open = false;
          break;
        }
      } else {
        if (c === 10) this.line += 1;
        this.i += 1;
      }
    }
    if (open) this.unbalanced = true;
    this.blank(from, this.i);
  }

  bracket(p, from) {
    if (OPENS.includes(p)) {
      this.brackets.push(this.token("p", p, from, this.line));
      return;
    }
    const want = OPENS[CLOSES.indexOf(p)];
    let open = -1;
    for (let k = this.brackets.length - 1; k >= this.floor; k -= 1) {
      if (this.tokens[this.brackets[k]].t === want) {
        open = k;
        break;
      }
    }
    if (open === -1 || open !== this.brackets.length - 1) this.unbalanced = true;
    const pair = open === -1 ? -1 : this.brackets[open];
    if (open !== -1) this.brackets.length = open;
    const t = this.token("p", p, from, this.line);
    // A closing bracket is inside what it closes: it opens no logical line.
    this.tokens[t].logical = false;
    if (pair !== -1) {
      this.tokens[t].m = pair;
      this.tokens[pair].m = t;
    }
  }

  /** Code from `i`: to the end, or (`untilBrace`) to the `}` that closes the string's code. */
  code(untilBrace) {
    const base = this.brackets.length;
    const outer = this.floor;
    this.floor = base;
    const { language, dollar, text } = this;
    while (this.i < this.n) {
      const from = this.i;
      const c = this.at(from);
      const next = this.at(from + 1);
      if (c === 10) {
        this.line += 1;
        this.i += 1;
      } else if (isSpace(c)) {
        this.i += 1;
      } else if (language === "python" && c === 92 && (next === 10 || (next === 13 && this.at(from + 2) === 10))) {
        this.continued = this.line + 1;
        this.i += 1;
      } else if ((language === "python" && c === 35) || (language !== "python" && c === 47 && next === 47)) {
        this.lineComment();
      } else if (language !== "python" && c === 47 && next === 42) {
        this.blockComment(language === "rust");
      } else if (untilBrace && c === 125 && this.brackets.length <= base) {
        break;
      } else if (isIdStart(c, dollar)) {
        let j = from + 1;
        while (isIdChar(this.at(j), dollar)) j += 1;
        const word = text.slice(from, j);
        if (language === "rust" && this.rustPrefixed(word, j)) continue;
        const lower = word.toLowerCase();
        if (language === "python" && (this.at(j) === 34 || this.at(j) === 39) && PY_PREFIXES.has(lower)) {
          this.pythonString(from, j, lower.includes("f"));
          continue;
        }
        this.i = j;
        this.token("id", word, from, this.line);
      } else if (isDigit(c)) {
        let j = from + 1;
        while (isIdChar(this.at(j), false) || (this.at(j) === 46 && isDigit(this.at(j + 1)))) j += 1;
        this.i = j;
        this.token("n", text.slice(from, j), from, this.line);
      } else if (c === 34 && language !== "python") {
        this.i += 1;
        this.quoted(from, 34, language === "script");
      } else if (c === 39 && language === "script") {
        this.i += 1;
        this.quoted(from, 39, true);
      } else if (c === 39 && language === "rust") {
        this.rustQuote(from, from);
      } else if ((c === 34 || c === 39) && language === "python") {
        this.pythonString(from, from, false);
      } else if (c === 96 && language === "script") {
        this.template(from);
      } else if (c === 47 && language === "script" && this.regexAllowed() && this.regex()) {
        // a regular expression literal, passed
      } else {
        const p = PUNCT[language].find((s) => text.startsWith(s, from)) ?? text[from];
        this.i += p.length;
        if (p.length === 1 && (OPENS.includes(p) || CLOSES.includes(p))) this.bracket(p, from);
        else this.token("p", p, from, this.line);
      }
    }
    this.floor = outer;
  }
}
Object.assign(Lexer.prototype, strings({ isIdChar, isIdStart }));

/** The tokens of `text` (a string) in `language` ("rust" | "python" | "script"). */
function lex(text, language) {
  const lexer = new Lexer(text, language);
  lexer.code(false);
  if (lexer.brackets.length > 0) lexer.unbalanced = true;
  return { tokens: lexer.tokens, blanks: lexer.blanks, unbalanced: lexer.unbalanced };
}

/** `text` with its comments and strings as spaces (newlines kept): what is code, where it is. */
function masked(text, blanks) {
  const parts = [];
  let from = 0;
  for (const [a, b] of blanks) {
    parts.push(text.slice(from, a));
    for (const piece of text.slice(a, b).split("\n")) parts.push(" ".repeat(piece.length), "\n");
    parts.pop();
    from = b;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/** The lexer that reads each language of lib/contract/source-outline.js. */
const LEXERS = { rust: "rust", python: "python", typescript: "script", javascript: "script" };

module.exports = { LEXERS, lex, masked };
