// What a matching line sits in, read from its file once: the twin of
// crates/core/src/source_context.rs (each line's text, the definition a line sits in, the Rust
// macro block that holds it). Runs in the source worker, never on the host's thread; the macro
// pass is one pass over the file, a definition is looked for at most `maxLinesUp` lines up.

/** Lines longer than this are not read for a definition's opening (none is that long). */
const MAX_OPENING_CHARS = 1000;

/** JavaScript's `\s` and String.trim's whitespace; the addon's `char::is_whitespace` alike for code. */
const leadingWhitespace = (text) => /^\s*/u.exec(text)[0].length;

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

/**
 * The definitions `lines` open, by `openings` (RegExps capturing the name in group 1; a name in
 * `notNames` is none), looked up as they are asked for: `enclosing(index, own, maxUp)`.
 */
function definitions(lines, openings, notNames) {
  const opened = new Map();
  const openedAt = (i) => {
    if (opened.has(i)) return opened.get(i);
    const line = lines[i].slice(0, MAX_OPENING_CHARS);
    let name = null;
    for (const pattern of openings) {
      const found = pattern.exec(line)?.[1];
      if (found && !notNames.includes(found)) {
        name = found;
        break;
      }
    }
    opened.set(i, name);
    return name;
  };
  return {
    /** The name line `index` opens when not `own`, else the nearest less-indented opening above. */
    enclosing(index, own, maxUp) {
      const self = openedAt(index);
      if (self !== null && self !== own) return self;
      const indent = leadingWhitespace(lines[index] ?? "");
      for (let i = index - 1; i >= 0 && i >= index - maxUp; i -= 1) {
        const text = lines[i];
        if (text.trim() === "" || leadingWhitespace(text) >= indent) continue;
        const name = openedAt(i);
        if (name !== null) return name;
      }
      return null;
    },
  };
}

const isWordByte = (b) => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95;
const isLetterByte = (b) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95;
const isSpaceByte = (b) => b === 32 || (b >= 9 && b <= 13);

/** The macro name right before an opening at `i` (`name!` and spaces), within 120 bytes. */
function macroBefore(bytes, i) {
  const from = Math.max(0, i - 120);
  let end = i;
  while (end > from && isSpaceByte(bytes[end - 1])) end -= 1;
  if (end === from || bytes[end - 1] !== 0x21) return null;
  const wordEnd = end - 1;
  let start = wordEnd;
  while (start > from && isWordByte(bytes[start - 1])) start -= 1;
  while (start < wordEnd && !isLetterByte(bytes[start])) start += 1;
  return start < wordEnd ? bytes.toString("latin1", start, wordEnd) : null;
}

/** Past the string opening at `i` (`"…"` with escapes, or raw `r#"…"#`). */
function stringEnd(bytes, i) {
  const from = Math.max(0, i - 8);
  let hashes = 0;
  while (i - hashes - 1 >= from && bytes[i - hashes - 1] === 0x23) hashes += 1;
  const raw = i - hashes - 1 >= from && bytes[i - hashes - 1] === 0x72;
  if (raw) {
    const close = Buffer.from(`"${"#".repeat(hashes)}`, "latin1");
    const end = bytes.indexOf(close, i + 1);
    return end === -1 ? bytes.length : end + close.length;
  }
  let j = i + 1;
  while (j < bytes.length && bytes[j] !== 0x22) j += bytes[j] === 0x5c ? 2 : 1;
  return j + 1;
}

const utf8Width = (b) => (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1);

/** Past a character literal opening at `i` (`'a'`, `'\n'`), or null (a lifetime). */
function charLiteralEnd(bytes, i) {
  const first = bytes[i + 1];
  if (first === undefined) return null;
  if (first === 0x5c) {
    const escaped = bytes[i + 2];
    return escaped !== undefined && escaped !== 0x0a && bytes[i + 3] === 0x27 ? i + 4 : null;
  }
  if (first === 0x27) return null;
  const width = utf8Width(first);
  return bytes[i + 1 + width] === 0x27 ? i + 2 + width : null;
}

/**
 * The macro whose block holds each line of a Rust file (`bytes`, a Buffer), innermost first:
 * `at(line)` (1-based) gives its name or null. One pass (crates/core/src/source_context.rs).
 */
function rustMacroLines(bytes) {
  const n = bytes.length;
  const stack = [];
  const lines = [null];
  let i = 0;
  while (i < n) {
    const c = bytes[i];
    let next = i + 1;
    if (c === 0x2f && bytes[i + 1] === 0x2f) {
      const end = bytes.indexOf(0x0a, i);
      next = end === -1 ? n : end;
    } else if (c === 0x2f && bytes[i + 1] === 0x2a) {
      const end = bytes.indexOf("*/", i + 2, "latin1");
      next = end === -1 ? n : end + 2;
    } else if (c === 0x22) {
      next = stringEnd(bytes, i);
    } else if (c === 0x27) {
      next = charLiteralEnd(bytes, i) ?? i + 1;
    } else if (c === 0x7b || c === 0x28 || c === 0x5b) {
      stack.push(macroBefore(bytes, i) ?? stack.at(-1) ?? null);
    } else if (c === 0x7d || c === 0x29 || c === 0x5d) {
      stack.pop();
    }
    const state = stack.at(-1) ?? null;
    for (let k = i, stop = Math.min(next, n); k < stop; k += 1) if (bytes[k] === 0x0a) lines.push(state);
    i = next;
  }
  return { at: (line) => (line >= 1 ? (lines[line - 1] ?? lines.at(-1) ?? null) : null) };
}

module.exports = { definitions, fileLines, prefix, rustMacroLines };
