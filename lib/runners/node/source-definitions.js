// A file's definitions from its tokens (source-lex.js): the twin of
// crates/core/src/source_lex/definitions.rs. Rust and JavaScript blocks end at their closing
// brace, Python's where a logical line is indented no deeper than the definition's. Each
// definition: `{ name, kind, line, endLine, parent (index or null), macro? }`, in source order.

/** Past this many tokens, a definition's body is not looked for (its opening is not one). */
const MAX_HEAD_TOKENS = 512;
const MAX_NAME_CHARS = 120;
const RUST_ITEMS = { fn: "function", struct: "struct", enum: "enum", trait: "trait", mod: "module" };
const SCRIPT_ITEMS = { interface: "interface", namespace: "module", module: "module", enum: "enum" };
/** What may stand before a Rust `impl` item (else it is `impl Trait` in a type). */
const MODIFIERS = new Set(["public", "private", "protected", "static", "async", "readonly", "override", "abstract"]);
for (const m of ["declare", "get", "set", "*", "accessor", "#"]) MODIFIERS.add(m);
const BEFORE_IMPL = new Set(["{", "}", ";", "]", "*", "unsafe", "default"]);
/** A line that starts with, or follows a line that ends with, these goes on with the statement. */
const GOES_ON = new Set([".", "?.", "=>", "?", ":", "&&", "||", "??", "+", "-", "*", "/", "|", "&", "=", ","]);
for (const p of ["<", ">", "==", "===", "!=", "!==", "<=", ">=", "%", "^"]) GOES_ON.add(p);

/** A line ending with this goes on (a `>` there closes a type's arguments: it ends nothing open). */
const endsGoingOn = (text) => text !== ">" && GOES_ON.has(text);

/** The whitespace a name's text is collapsed on. */
const collapse = (text) =>
  text
    .split(/[ \t\n\r\f]+/u)
    .filter((w) => w !== "")
    .join(" ");

/** How wide a line's indentation is (a tab to the next multiple of 8). */
function indentOf(text, from) {
  let width = 0;
  for (let k = from; k < text.length; k += 1) {
    const c = text.charCodeAt(k);
    if (c === 32) width += 1;
    else if (c === 9) width += 8 - (width % 8);
    else break;
  }
  return width;
}

/** The definitions of the tokens of `lexed` (of `text`; `code`: `text` with its comments and strings blanked). */
function definitions(language, lexed, text, code) {
  const { tokens } = lexed;
  const defs = [];
  const open = []; // { def, close }
  const is = (k, kind, text) => tokens[k]?.k === kind && (text === undefined || tokens[k].t === text);
  const parentAt = (k) => {
    while (open.length > 0 && open[open.length - 1].close < k) open.pop();
    return open.length > 0 ? open[open.length - 1].def : null;
  };
  function add(name, kind, line, endLine, parent, close) {
    const def = { name, kind, line, endLine, parent };
    const up = parent === null ? null : defs[parent];
    const macro = up === null ? null : up.kind === "macro" && language === "rust" ? up.name : (up.macro ?? null);
    if (macro !== null) def.macro = macro;
    defs.push(def);
    if (close !== null) open.push({ def: defs.length - 1, close });
  }
  /**
   * From token `k`: the body `{ open, close }` or the `;` that ends a head without one, or null.
   * In a script, braces inside `<…>` or right after `:` are a type's (`<T extends { a: 1 }>`,
   * `): { a: 1 } {`), passed.
   */
  function body(k) {
    let angle = 0;
    for (let j = k; j < tokens.length && j < k + MAX_HEAD_TOKENS; j += 1) {
      const t = tokens[j];
      if (t.k !== "p") continue;
      if (language === "script" && t.t === "<") angle += 1;
      else if (t.t === ">" && angle > 0) angle -= 1;
      else if (t.t === "{" && (angle > 0 || (language === "script" && is(j - 1, "p", ":")))) {
        if (t.m === -1) return null;
        j = t.m;
      } else if (t.t === "{") return t.m === -1 ? null : { open: j, close: t.m };
      else if (t.t === "(" || t.t === "[") {
        if (t.m === -1) return null;
        j = t.m;
      } else if (t.t === ";") return { open: -1, close: j };
      else if (t.t === ")" || t.t === "]" || t.t === "}") return null;
    }
    return null;
  }
  const ends = (b) => tokens[b.close].line;

  function rust(k) {
    const t = tokens[k];
    if (t.t === "macro_rules" && is(k + 1, "p", "!") && is(k + 2, "id") && tokens[k + 3]?.m > k + 3) {
      const close = tokens[k + 3].m;
      return add(tokens[k + 2].t, "macro", t.line, tokens[close].line, parentAt(k), close);
    }
    if (t.t === "impl") {
      const prev = tokens[k - 1];
      if (prev && !BEFORE_IMPL.has(prev.t)) return;
      let j = k + 1;
      if (is(j, "p", "<")) {
        for (let depth = 0; j < tokens.length && j < k + MAX_HEAD_TOKENS; j += 1) {
          depth += tokens[j].t === "<" ? 1 : tokens[j].t === ">" ? -1 : 0;
          if (depth === 0) break;
        }
        j += 1;
      }
      const b = body(j);
      if (b === null || b.open === -1) return;
      let last = b.open - 1;
      for (let w = j; w < b.open; w += 1) if (is(w, "id", "where")) last = Math.min(last, w - 1);
      if (last < j) return;
      const name = Array.from(collapse(code.slice(tokens[j].from, tokens[last].to)))
        .slice(0, MAX_NAME_CHARS)
        .join("");
      return add(name, "impl", t.line, ends(b), parentAt(k), b.close);
    }
    const kind = RUST_ITEMS[t.t];
    if (!kind) return;
    let name = null;
    let next = k + 1;
    if (is(next, "id")) name = tokens[next].t;
    else if (is(next, "p", "$") && is(next + 1, "id")) name = `$${tokens[++next].t}`;
    if (name === null) return;
    const b = body(next + 1);
    if (b === null) return;
    const parent = parentAt(k);
    const inImpl = parent !== null && (defs[parent].kind === "impl" || defs[parent].kind === "trait");
    add(name, kind === "function" && inImpl ? "method" : kind, t.line, ends(b), parent, b.open === -1 ? null : b.close);
  }

  /** Python: a logical line opening `def`/`class`; a block ends before a line indented no deeper. */
  function python() {
    const stack = []; // { def, indent }
    let lastEnd = 0;
    for (let k = 0; k < tokens.length; k += 1) {
      const t = tokens[k];
      if (t.logical) {
        const indent = indentOf(text, lineStart(t.from));
        while (stack.length > 0 && stack[stack.length - 1].indent >= indent) defs[stack.pop().def].endLine = lastEnd;
        const head = t.t === "async" && is(k + 1, "id", "def") ? k + 1 : k;
        if (t.k === "id" && (tokens[head].t === "def" || tokens[head].t === "class") && is(head + 1, "id")) {
          const parent = stack.length > 0 ? stack[stack.length - 1].def : null;
          const cls = tokens[head].t === "class";
          const kind = cls ? "class" : parent !== null && defs[parent].kind === "class" ? "method" : "function";
          add(tokens[head + 1].t, kind, t.line, t.line, parent, null);
          stack.push({ def: defs.length - 1, indent });
        }
      }
      lastEnd = Math.max(lastEnd, t.end);
    }
    for (const s of stack) defs[s.def].endLine = lastEnd;
  }
  /** The offset of the start of the line holding offset `at`. */
  const lineStart = (at) => (at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1);
  const indentAt = (k) => indentOf(text, lineStart(tokens[k].from));

  /** Where a statement starting at token `k` ends: `;`, a closing bracket, or a line that does not go on (a `,` may be a type argument's). */
  function statementEnd(k, indent) {
    let j = k;
    for (; j < tokens.length; j += 1) {
      const t = tokens[j];
      if (j > k && t.first && !GOES_ON.has(t.t) && !endsGoingOn(tokens[j - 1].t)) {
        if (indentAt(j) <= indent) return j - 1;
      }
      if (t.k !== "p") continue;
      // `;`, or a `,` before another declarator (`a = 1, b = 2`; one in `<A, B>` is a type's).
      if (t.t === ";" || (t.t === "," && is(j + 1, "id") && is(j + 2, "p", "="))) return j;
      if (t.t === ")" || t.t === "]" || t.t === "}") return j - 1;
      if ((t.t === "(" || t.t === "[" || t.t === "{") && t.m !== -1) j = t.m;
    }
    return tokens.length - 1;
  }
  /** Past the type parameters `<…>` at token `j` (brackets in them passed whole); `j` when there are none. */
  function pastAngles(j) {
    if (!is(j, "p", "<")) return j;
    let depth = 0;
    for (let k = j; k < tokens.length && k < j + MAX_HEAD_TOKENS; k += 1) {
      const t = tokens[k];
      if (t.k !== "p") continue;
      if (t.t === "<") depth += 1;
      else if (t.t === ">") depth -= 1;
      else if ((t.t === "(" || t.t === "[" || t.t === "{") && t.m !== -1) k = t.m;
      if (depth === 0) return k + 1;
    }
    return j;
  }
  /** An arrow function or function expression from token `k` (its statement's line indented `indent`): the token it ends at, or -1. */
  function functionValue(k, indent) {
    let j = is(k, "id", "async") ? k + 1 : k;
    if (is(j, "id", "function")) {
      const b = body(j + 1);
      return b === null || b.open === -1 ? -1 : b.close;
    }
    j = pastAngles(j);
    if (is(j, "p", "(") && tokens[j].m !== -1) {
      j = tokens[j].m + 1;
      if (is(j, "p", ":")) {
        let angle = 0;
        for (let limit = j + MAX_HEAD_TOKENS; j < tokens.length && j < limit && !is(j, "p", "=>"); j += 1) {
          const t = tokens[j];
          if (angle === 0 && (t.t === ";" || t.t === "=" || (t.first && !GOES_ON.has(t.t)))) return -1;
          if (t.t === "<") angle += 1;
          else if (t.t === ">" && angle > 0) angle -= 1;
          if ((t.t === "(" || t.t === "[" || t.t === "{") && t.m !== -1) j = t.m;
        }
      }
    } else if (is(j, "id")) j += 1;
    if (!is(j, "p", "=>")) return -1;
    if (is(j + 1, "p", "{") && tokens[j + 1].m !== -1) return tokens[j + 1].m;
    return statementEnd(j + 1, indent);
  }
  /** Whether token `k` begins a class member (after the class's `{`, a member, its modifiers or decorator). */
  function memberStart(k) {
    for (let j = k; j > k - 8; j -= 1) {
      const prev = tokens[j - 1];
      if (!prev || prev.t === "{" || prev.t === ";" || prev.t === "}") return true;
      if (MODIFIERS.has(prev.t)) continue;
      if (prev.t === ")" && prev.m > 1 && is(prev.m - 2, "p", "@")) return true;
      if (prev.k === "id" && is(j - 2, "p", "@")) return true;
      return tokens[j].first && !endsGoingOn(prev.t);
    }
    return false;
  }

  function script(k) {
    const t = tokens[k];
    const parent = parentAt(k);
    const up = parent === null ? null : defs[parent];
    if (t.t === "function" && !is(k - 1, "p", ".")) {
      const at = is(k + 1, "p", "*") ? k + 2 : k + 1;
      if (!is(at, "id")) return;
      const b = body(at + 1);
      if (b !== null && b.open !== -1) add(tokens[at].t, "function", t.line, ends(b), parent, b.close);
      return;
    }
    if (t.t === "class" && is(k + 1, "id") && tokens[k + 1].t !== "extends" && tokens[k + 1].t !== "implements") {
      const b = body(k + 2);
      if (b !== null && b.open !== -1) add(tokens[k + 1].t, "class", t.line, ends(b), parent, b.close);
      return;
    }
    if (SCRIPT_ITEMS[t.t] && is(k + 1, "id") && !is(k - 1, "p", ".")) {
      let j = k + 2;
      while (is(j, "p", ".") && is(j + 1, "id")) j += 2;
      if (!is(j, "p", "{") && !(t.t === "interface" || t.t === "enum")) return;
      const b = body(j);
      if (b !== null && b.open !== -1) add(tokens[k + 1].t, SCRIPT_ITEMS[t.t], t.line, ends(b), parent, b.close);
      return;
    }
    if ((t.t === "const" || t.t === "let" || t.t === "var") && is(k + 1, "id")) {
      let j = k + 2;
      if (is(j, "p", ":")) {
        for (; j < tokens.length && j < k + MAX_HEAD_TOKENS && !is(j, "p", "=") && !is(j, "p", ";"); j += 1) {
          if ((tokens[j].t === "(" || tokens[j].t === "[" || tokens[j].t === "{") && tokens[j].m !== -1)
            j = tokens[j].m;
        }
      }
      if (!is(j, "p", "=")) return;
      const end = functionValue(j + 1, indentAt(k));
      const top = up === null || up.kind === "module";
      if (end !== -1) add(tokens[k + 1].t, "function", t.line, tokens[end].end, parent, end);
      else if (top) {
        const last = statementEnd(j + 1, indentAt(k));
        add(tokens[k + 1].t, "variable", t.line, tokens[last].end, parent, last);
      }
      return;
    }
    // A class member: a name right inside the class's braces, then its parameters and body (a
    // method) or `=` and a function (a property holding one).
    if (up === null || up.kind !== "class" || t.up === -1 || tokens[t.up].m !== open[open.length - 1].close) return;
    if (!memberStart(k)) return;
    let j = is(k + 1, "p", "?") || is(k + 1, "p", "!") ? k + 2 : k + 1;
    j = pastAngles(j);
    if (is(j, "p", "(") && tokens[j].m !== -1) {
      const b = body(tokens[j].m + 1);
      if (b !== null && b.open !== -1) add(t.t, "method", t.line, ends(b), parent, b.close);
    } else if (is(j, "p", "=")) {
      const end = functionValue(j + 1, indentAt(k));
      if (end !== -1) add(t.t, "method", t.line, tokens[end].end, parent, end);
    }
  }

  if (language === "python") python();
  else {
    for (let k = 0; k < tokens.length; k += 1) {
      if (tokens[k].k !== "id") continue;
      if (language === "rust") rust(k);
      else script(k);
    }
  }
  return defs;
}

module.exports = { definitions, indentOf };
