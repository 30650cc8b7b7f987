// Paths as words may show them: the one rule for every message, remediation and details entry
// that names a path (both runners hand over raw paths; only the words module shortens them).

/** The longest a path may be in a message; longer ones keep their start and end. */
const MAX_SHOWN_PATH_CHARS = 240;

/**
 * A path as a message may show it: control characters escaped (a directory name with a newline
 * must not add lines to what the model reads), at most MAX_SHOWN_PATH_CHARS characters. The
 * escapes are Rust's `char::escape_default` (`\n`, `\t`, `\r`, `\u{1b}`), as messages always
 * printed them.
 */
function shownPath(p) {
  let escaped = "";
  for (const c of String(p)) {
    const n = c.codePointAt(0);
    if (n < 0x20 || (n >= 0x7f && n <= 0x9f)) {
      escaped += { 9: "\\t", 10: "\\n", 13: "\\r" }[n] ?? `\\u{${n.toString(16)}}`;
    } else escaped += c;
  }
  const chars = [...escaped];
  if (chars.length <= MAX_SHOWN_PATH_CHARS) return escaped;
  const half = MAX_SHOWN_PATH_CHARS / 2;
  const omitted = chars.length - 2 * half;
  return `${chars.slice(0, half).join("")}…(${omitted} characters omitted)…${chars.slice(-half).join("")}`;
}

module.exports = { shownPath };
