// The lexer's literals (source-lex.js; the twin of crates/core/src/source_lex/strings.rs): quoted
// strings, template literals and the code in them, Python's strings, Rust's raw strings,
// character literals and lifetimes, regular expressions. Methods of the lexer, `this` its state.

const MAX_NESTING = 64;
/** Python's string prefixes, lowercased. */
const PY_PREFIXES = new Set(["r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt"]);
/** After these words a `/` opens a regular expression. */
const REGEX_AFTER = new Set(["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case"]);
for (const w of ["do", "else", "yield", "await"]) REGEX_AFTER.add(w);

/** The methods, over the lexer's character classes. */
function strings({ isIdChar, isIdStart }) {
  return {
    stringToken(from) {
      return this.token("s", "", from, this.line);
    },

    /** A string's `\\` at `i`: it and the character it escapes (a line break counted). */
    escape() {
      if (this.at(this.i + 1) === 10) this.line += 1;
      this.i += 2;
    },

    /** One character `c` of a string's body, at `i` (a line break counted). */
    step(c) {
      if (c === 10) this.line += 1;
      this.i += 1;
    },

    /** The string token `t` the text ended in: never closed. */
    unclosed(t, part) {
      this.i = this.n;
      this.unbalanced = true;
      this.ended(t, part);
    },

    /** A quoted string whose body starts at `i`: escapes skip a character; `oneLine` ends it at a newline. */
    quoted(from, quote, oneLine) {
      const t = this.stringToken(from);
      while (this.i < this.n) {
        const c = this.at(this.i);
        if (c === 92) {
          this.escape();
          continue;
        }
        if (c === quote) {
          this.i += 1;
          return this.ended(t, from);
        }
        if (c === 10 && oneLine) return this.ended(t, from);
        this.step(c);
      }
      this.unclosed(t, from);
    },

    /** Code inside a string (`${…}`, an f-string's `{…}`), from the `{` at `i` past its `}`. */
    inner() {
      this.i += 1;
      this.inString += 1;
      if (this.inString > MAX_NESTING) {
        this.unbalanced = true;
        this.i = this.n;
      } else this.code(true);
      if (this.at(this.i) === 125) this.i += 1;
      else this.unbalanced = true;
      this.inString -= 1;
    },

    /** A string's code part at the `{` at `brace`: its text since `part` blanked up to it, the code read past its `}`; where its next part begins (that `}`). */
    codePart(part, brace) {
      this.blank(part, brace + 1);
      this.i = brace;
      this.inner();
      return this.i - 1;
    },

    template(from) {
      const t = this.stringToken(from);
      this.i += 1;
      let part = from;
      while (this.i < this.n) {
        const c = this.at(this.i);
        if (c === 92) this.escape();
        else if (c === 96) {
          this.i += 1;
          return this.ended(t, part);
        } else if (c === 36 && this.at(this.i + 1) === 123) {
          part = this.codePart(part, this.i + 1);
        } else this.step(c);
      }
      this.unclosed(t, part);
    },

    pythonString(from, q, f) {
      const quote = this.at(q);
      const triple = this.at(q + 1) === quote && this.at(q + 2) === quote;
      const t = this.stringToken(from);
      this.i = q + (triple ? 3 : 1);
      let part = from;
      while (this.i < this.n) {
        const c = this.at(this.i);
        const next = this.at(this.i + 1);
        if (c === 92) this.escape();
        else if (c === quote && (!triple || (next === quote && this.at(this.i + 2) === quote))) {
          this.i += triple ? 3 : 1;
          return this.ended(t, part);
        } else if (c === 10 && !triple) {
          return this.ended(t, part);
        } else if (f && (c === 123 || c === 125) && next === c) {
          this.i += 2;
        } else if (f && c === 123) {
          part = this.codePart(part, this.i);
        } else this.step(c);
      }
      this.unclosed(t, part);
    },

    /** Rust's raw string at `q` (`#`… then `"`), or false. */
    rawString(from, q) {
      let hashes = 0;
      while (this.at(q + hashes) === 35) hashes += 1;
      if (this.at(q + hashes) !== 34) return false;
      const close = `"${"#".repeat(hashes)}`;
      const end = this.text.indexOf(close, q + hashes + 1);
      const t = this.stringToken(from);
      const to = end === -1 ? this.n : end + close.length;
      if (end === -1) this.unbalanced = true;
      for (let k = this.i; k < to; k += 1) if (this.at(k) === 10) this.line += 1;
      this.i = to;
      this.ended(t, from);
      return true;
    },

    /** A `kind` token started at `from` whose text runs from `textFrom` to the end of the word's characters at `start`. */
    wordToken(kind, from, textFrom, start) {
      let k = start;
      while (isIdChar(this.at(k), false)) k += 1;
      this.i = k;
      this.token(kind, this.text.slice(textFrom, k), from, this.line);
    },

    /** Rust's `'`: a character literal (`'a'`, `'\n'`, `b'x'`) or a lifetime (`'a`). */
    rustQuote(from, q) {
      if (this.at(q + 1) === 92) {
        for (let k = q + 3; k < Math.min(this.n, q + 14) && this.at(k) !== 10; k += 1) {
          if (this.at(k) !== 39) continue;
          this.i = k + 1;
          return this.ended(this.stringToken(from), from);
        }
      } else {
        const c = this.at(q + 1);
        const width = c >= 0xd800 && c <= 0xdbff ? 2 : 1;
        if (c !== -1 && c !== 10 && c !== 39 && this.at(q + 1 + width) === 39) {
          this.i = q + 2 + width;
          return this.ended(this.stringToken(from), from);
        }
        if (isIdStart(c, false)) {
          this.wordToken("lt", from, q, q + 2);
          return;
        }
      }
      this.i = q + 1;
      this.token("p", "'", from, this.line);
    },

    /** A word that opens a Rust literal (`r"…"`, `br#"…"#`, `b'x'`, `c"…"`) or raw identifier; false else. */
    rustPrefixed(word, j) {
      const from = this.i;
      const next = this.at(j);
      if ((word === "r" || word === "br" || word === "cr") && (next === 34 || next === 35)) {
        this.i = j;
        if (this.rawString(from, j)) return true;
        this.i = from;
        if (word === "r" && next === 35 && isIdStart(this.at(j + 1), false)) {
          this.wordToken("id", from, from, j + 1);
          return true;
        }
        return false;
      }
      if ((word === "b" || word === "c") && next === 34) {
        this.i = j + 1;
        this.quoted(from, 34, false);
        return true;
      }
      if (word === "b" && next === 39) {
        this.rustQuote(from, j);
        return true;
      }
      return false;
    },

    regexAllowed() {
      const prev = this.tokens[this.tokens.length - 1];
      if (!prev) return true;
      if (prev.k === "p") return prev.t !== ")" && prev.t !== "]" && prev.t !== "}";
      return prev.k === "id" && REGEX_AFTER.has(prev.t);
    },

    /** A regular expression literal at `i` (on one line), or false. */
    regex() {
      let k = this.i + 1;
      let cls = false;
      while (k < this.n) {
        const c = this.at(k);
        if (c === 10) return false;
        if (c === 92) {
          if (this.at(k + 1) === 10) return false;
          k += 2;
          continue;
        }
        if (c === 91) cls = true;
        else if (c === 93) cls = false;
        else if (c === 47 && !cls) break;
        k += 1;
      }
      if (k >= this.n) return false;
      k += 1;
      while (isIdChar(this.at(k), false)) k += 1;
      const from = this.i;
      this.i = k;
      this.ended(this.stringToken(from), from);
      return true;
    },
  };
}

module.exports = { PY_PREFIXES, strings };
