// What a matching line sits in, read from its file once by the lexer (source-lex.js) in a
// language it knows: the twin of crates/core/src/source_context.rs (each line's code with its
// comments and strings blanked, the innermost definition whose lines hold it, the `macro_rules!`
// whose template holds it, the Rust macro block that holds it). Runs in the source worker, never
// on the host's thread. In a language the lexer does not know, or a file where something did not
// close, none of these is claimed.

const { definitions } = require("./source-definitions.js");
const { lex, masked } = require("./source-lex.js");

/** A file's text split into lines (`\n`; a `\r` stays on its line), with its true line count. */
function fileLines(text) {
  const lines = text.split("\n");
  const count = text === "" ? 0 : text.endsWith("\n") ? lines.length - 1 : lines.length;
  return { lines, count };
}

/** The first `maxChars` characters (code points) of `text`. */
function prefix(text, maxChars) {
  if (text.length <= maxChars) return text;
  return Array.from(text.slice(0, maxChars * 2))
    .slice(0, maxChars)
    .join("");
}

/** The first token at or before line `line`'s first (tokens are in source order). */
function tokenAt(tokens, line) {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tokens[mid].line < line) lo = mid + 1;
    else hi = mid;
  }
  return lo < tokens.length && tokens[lo].line === line ? lo : lo - 1;
}

/**
 * What the lexer (`lexer`: "rust" | "python" | "script") says of `text`'s lines, or null where
 * something did not close: `{ codeLine(line), place(line, own) }` (1-based lines).
 */
function fileFacts(text, lexer) {
  const lexed = lex(text, lexer);
  if (lexed.unbalanced) return null;
  const code = masked(text, lexed.blanks);
  const defs = definitions(lexer, lexed, text, code);
  const codeLines = code.split("\n");
  const { tokens } = lexed;
  /** The macro `name!` whose block (opened right after it) holds line `line`, innermost first. */
  function macroBlock(line) {
    const at = tokenAt(tokens, line);
    if (at < 0) return null;
    for (let open = tokens[at].up; open !== -1; open = tokens[open].up) {
      const bang = tokens[open - 1];
      const name = tokens[open - 2];
      if (bang?.k === "p" && bang.t === "!" && name?.k === "id" && name.t !== "macro_rules") return name.t;
    }
    return null;
  }
  return {
    codeLine: (line) => codeLines[line - 1] ?? "",
    /** `{ within, macroRules, macro }`: the innermost definition that holds line `line` (not `own`'s own opening line). */
    place(line, own) {
      let innermost = null;
      for (let k = defs.length - 1; k >= 0; k -= 1) {
        const d = defs[k];
        if (d.line <= line && line <= d.endLine && !(d.line === line && d.name === own)) {
          innermost = d;
          break;
        }
      }
      const place = { within: null, macroRules: null, macro: lexer === "rust" ? macroBlock(line) : null };
      if (innermost?.kind === "macro") place.macroRules = innermost.name;
      else if (innermost?.macro) place.macroRules = innermost.macro;
      else if (innermost?.kind === "impl") place.within = `impl ${innermost.name}`;
      else if (innermost) place.within = innermost.name;
      return place;
    },
  };
}

module.exports = { fileFacts, fileLines, prefix };
