// Where the source opens a scope a qualified name writes (`Registration` of
// `Registration::poll_ready`, `Inventory` of `Inventory.add`): the lines a definition in that scope
// must follow in its own file. A Rust method of `Registration` sits in an `impl … Registration`
// (or a `trait`, a `mod`) of its file, a Python one in a `class Registration`, a script one in a
// class, namespace, object or assignment naming it, a Go one on a line naming its receiver. The
// patterns take more lines than open the scope (any such line naming it), never fewer: a file
// none of whose lines they match holds no definition in the scope. The scan is the runners'
// `scanSource`; the patterns keep to the syntax Rust's `regex` and JavaScript read alike.

const { FAMILY_EXTENSIONS, LINE_CHARS, SCAN_LIMITS, nameAlternation, skippedDirs } = require("./definitions.js");

/** Types of one name are few; their openings (impl blocks) more. */
const SCOPE_LIMITS = { ...SCAN_LIMITS, maxMatches: 128 };

const before = "(?:^|[^\\w$])";
const after = "(?:[^\\w$]|$)";

/** The rules for the lines that may open scope `name` (a plain identifier), per family of languages. */
function scopeRules(name) {
  const n = `${before}${nameAlternation([name])}${after}`;
  const rule = (family, pattern) => ({ extensions: FAMILY_EXTENSIONS[family], pattern });
  return [
    // An `impl` whose type is on a later line (`impl<\n  T,\n> Registration {`) by the line opening its block.
    rule("rust", `\\b(?:impl|trait|mod)\\b.*${n}|^\\s*[^/\\s].*${n}[^;]*\\{\\s*$`),
    rule(
      "script",
      `\\b(?:class|interface|namespace|module|enum|const|let|var|function|type|declare)\\b.*${n}|${n.slice(0, -after.length)}\\s*(?:[.=:\\[]|$)`,
    ),
    rule("python", `\\bclass\\b.*${n}|^\\s*${nameAlternation([name])}\\s*[:=]`),
    rule("go", `\\b(?:type|func)\\b.*${n}`),
    rule(
      "other",
      `\\b(?:class|interface|enum|struct|trait|object|protocol|extension|record|module|namespace|impl|def|func|fun)\\b.*${n}`,
    ),
  ];
}

/** The scan request (`scanSource`'s second argument) for the lines that may open scope `name`. */
function scopeScan(name, { indexDir } = {}) {
  return {
    rules: scopeRules(name),
    ...skippedDirs(indexDir),
    ...SCOPE_LIMITS,
    context: { lineChars: LINE_CHARS, tags: [], openings: [], notNames: [], maxLinesUp: 0 },
  };
}

module.exports = { scopeRules, scopeScan };
