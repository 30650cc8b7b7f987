// Changed lines → changed symbols: each changed line's innermost definition in the file's outline
// (the runner's `outlineSource`: whole definitions, bodies included), and what CodeGraph's
// `impact --json` says depends on one of them.

/** At most this many changed lines of one file are mapped line by line (past it, by range ends only). */
const MAX_LINES_MAPPED = 5000;

/** The innermost definition of `defs` (an outline's, in source order) that holds `line`, or -1. */
function innermost(defs, line) {
  let best = -1;
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i];
    if (d.line > line) break;
    if (line <= d.endLine && (best === -1 || d.line >= defs[best].line)) best = i;
  }
  return best;
}

/**
 * One changed file (`{ path, ranges, whole }`, lib/api/git-diff.js) against its outline entry
 * (`{ definitions, lines }`): `{ symbols, outside }`: the definitions the changed lines touch,
 * innermost first in source order (`{ name, kind, line, endLine, parent, changed: [[from, to]] }`,
 * `parent` the enclosing one's name), and the changed ranges outside every definition. A whole
 * file (new, or changed outside git) touches its top-level definitions.
 */
function touchedDefinitions(file, outlined) {
  const defs = Array.isArray(outlined?.definitions) ? outlined.definitions : [];
  const touched = new Map();
  const outside = [];
  const parentName = (d) => (Number.isInteger(d.parent) ? defs[d.parent]?.name : undefined);
  const mark = (i, line) => {
    const entry = touched.get(i) ?? { lines: [] };
    entry.lines.push(line);
    touched.set(i, entry);
  };
  if (file.whole) {
    defs.forEach((d, i) => {
      if (d.parent === null || d.parent === undefined) mark(i, d.line);
    });
  } else {
    let budget = MAX_LINES_MAPPED;
    for (const r of file.ranges) {
      if (r.cut) {
        // Lines cut after line `from`: the definition that holds that place (it goes on past it).
        const i = innermost(defs, r.from);
        if (i !== -1 && defs[i].endLine > r.from) mark(i, r.from);
        else outside.push([r.from, r.from]);
        continue;
      }
      const lines = [];
      for (let l = r.from; l <= r.to && budget > 0; l++, budget--) lines.push(l);
      if (lines.length === 0) lines.push(r.from, r.to);
      let out = null;
      for (const l of lines) {
        const i = innermost(defs, l);
        if (i !== -1) mark(i, l);
        else if (out && out[1] === l - 1) out[1] = l;
        else {
          out = [l, l];
          outside.push(out);
        }
      }
    }
  }
  const symbols = [...touched.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([i, { lines }]) => {
      const d = defs[i];
      const changed = [];
      for (const l of [...new Set(lines)].sort((a, b) => a - b)) {
        const last = changed.at(-1);
        if (last && last[1] === l - 1) last[1] = l;
        else changed.push([l, l]);
      }
      const parent = parentName(d);
      return {
        name: d.name,
        kind: d.kind,
        line: d.line,
        endLine: d.endLine,
        ...(parent ? { parent } : {}),
        ...(d.macro ? { macro: d.macro } : {}),
        changed,
      };
    });
  return { symbols, outside };
}

/** The kinds `impact` is asked about (a block such as Rust's `impl` or a module is not one symbol). */
const IMPACT_KINDS = new Set([
  "function",
  "method",
  "class",
  "struct",
  "enum",
  "trait",
  "interface",
  "macro",
  "type",
  "type_alias",
  "constant",
  "variable",
  "property",
  "field",
  "constructor",
]);

/**
 * CodeGraph's `impact <name> --file <path> --json` text → what depends on the definition at
 * `path`:`line`: `{ found, dependents: [{ name, kind, path, line, callAt? }], files }` (the
 * definition itself left out; `callAt`, `path:line` of its call or import of the symbol, for the
 * direct ones), or `{ found: false }` when the index has no such definition, or null when the
 * text is not CodeGraph's JSON (cut, or another answer).
 */
function impactOf(text, path, line) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const defs = Array.isArray(data?.definitions) ? data.definitions : [];
  const here = defs.filter((d) => d?.definition?.filePath === path);
  if (here.length === 0) return { found: false };
  const pick = here.reduce((a, b) =>
    Math.abs((a.definition.startLine ?? 0) - line) <= Math.abs((b.definition.startLine ?? 0) - line) ? a : b,
  );
  const id = pick.definition.id;
  const nodes = new Map((pick.affected ?? []).map((n) => [n.id, n]));
  const callAt = new Map();
  for (const e of pick.edges ?? []) {
    if (e?.target !== id || callAt.has(e.source)) continue;
    const src = nodes.get(e.source);
    if (src && Number.isInteger(e.line)) callAt.set(e.source, `${src.filePath}:${e.line}`);
  }
  const dependents = (pick.affected ?? [])
    .filter((n) => n.id !== id)
    .map((n) => ({
      name: n.name,
      kind: n.kind,
      path: n.filePath,
      line: n.startLine,
      ...(callAt.has(n.id) ? { callAt: callAt.get(n.id) } : {}),
    }));
  // The direct ones first, each group in CodeGraph's order.
  dependents.sort((a, b) => Number(Boolean(b.callAt)) - Number(Boolean(a.callAt)));
  return { found: true, dependents, files: new Set(dependents.map((d) => d.path)).size };
}

/** CodeGraph's `affected <file> --json` text → its test files, or null when it is not that JSON. */
function testsOf(text) {
  try {
    const data = JSON.parse(text);
    return Array.isArray(data?.affectedTests) ? data.affectedTests.filter((t) => typeof t === "string") : null;
  } catch {
    return null;
  }
}

module.exports = { IMPACT_KINDS, impactOf, innermost, testsOf, touchedDefinitions };
