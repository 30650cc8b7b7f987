// Text as people and terminals see it: control characters made visible, the equivalent command
// line of a call, and one short line out of any thrown value. (Sizes: Pi's own formatSize.)

/**
 * Text from the model or the CLI as a terminal may show it: escape sequences and other control
 * characters (OSC title or clipboard writes, screen clears) become visible `\x1b`-style escapes,
 * and so do the invisible characters that reorder or break what is shown (bidi embeddings,
 * overrides and isolates, as in "Trojan Source"; line and paragraph separators) as `\u{202e}`.
 */
function printable(text) {
  return String(text).replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => {
      const n = c.charCodeAt(0);
      return n < 0x100 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u{${n.toString(16)}}`;
    },
  );
}

/** A word as a POSIX shell would need it quoted, for display only. */
const quoted = (word) => `'${String(word).replace(/'/g, `'\\''`)}'`;

/** A command description (lib/contract/commands.js) as a command line, for the transcript (display only). */
function commandLine(command) {
  const options = command.options.map((o) => (/^--[a-z0-9-]+(=[\w./:@+-]*)?$/.test(o) ? o : quoted(o)));
  const positional = "positional" in command ? ["--", quoted(command.positional)] : [];
  return ["codegraph", command.subcommand, ...options, ...positional].join(" ");
}

/** The first line (at most 200 characters) of an error or any other thrown value. */
function firstLine(value) {
  try {
    return String(value?.message ?? value)
      .split("\n")[0]
      .slice(0, 200);
  } catch {
    return "unprintable";
  }
}

/** A copy without the undefined fields (absent, never undefined). */
const withoutUndefined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

module.exports = { printable, commandLine, firstLine, withoutUndefined };
