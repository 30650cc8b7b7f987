// The first step of a call path's walk where CodeGraph's graph has no callee of `from` (a method
// called on a value whose type it does not infer: django's `TimestampSigner(...).sign_object(...)`
// in `signing.dumps`): `from`'s body is read from the source (its lines by the runner's outline,
// the file read bounded) for the names it calls, and CodeGraph is asked for the callees of the
// first few (`callees <name> --json`); their definitions are where the walk goes on, each hop a
// text match (a call by name: namesakes share it). A name CodeGraph does not know is no step.

const { isCommentLine } = require("./blind-spots.js");
const { linesOf } = require("./call-lines.js");

/** Names looked up per definition of `from`, in the order its body calls them, and in all. */
const NAMES_PER_BODY = 4;
const MOST_NAMES = 8;
/** A body is read up to this many lines, each up to this length. */
const MOST_BODY_LINES = 300;
const MAX_LINE = 4000;
const OUTLINE_DEADLINE_MS = 1000;
/** A name called: `name(`, `name::<T>(`, `name<T>(`. */
const CALLED = /([A-Za-z_$][\w$]*)\s*(?:::\s*<[^>]*>\s*)?(?:<[^>()]*>\s*)?\(/gu;
/** Words that are followed by a parenthesis and call nothing of the code base's. */
const NOT_CALLS = new Set([
  "if",
  "for",
  "while",
  "match",
  "switch",
  "return",
  "fn",
  "def",
  "function",
  "catch",
  "await",
  "async",
  "Some",
  "Ok",
  "Err",
]);
/** What a text step may go to: code that runs. */
const CALLABLE = new Set(["function", "method", "constructor"]);

/**
 * The calls `roots`' bodies make by name: `[{ root, name, line }]`, at most NAMES_PER_BODY a body
 * and MOST_NAMES in all, the first call of each name; empty without an outline.
 */
async function bodyNames(roots, cwd, outline, readLines) {
  if (typeof outline !== "function") return [];
  const readable = roots.filter((r) => r.filePath && r.startLine !== null);
  const paths = [...new Set(readable.map((r) => r.filePath))];
  if (paths.length === 0) return [];
  const found = await Promise.resolve()
    .then(() => outline(cwd, { paths, deadlineMs: OUTLINE_DEADLINE_MS }))
    .catch(() => null);
  const outlines = new Map();
  for (const f of Array.isArray(found?.files) ? found.files : [])
    if (f && !f.problem && Array.isArray(f.definitions)) outlines.set(f.path, f.definitions);
  const calls = [];
  const seen = new Set();
  for (const root of readable) {
    const defs = outlines.get(root.filePath) ?? [];
    const def = defs.find((d) => d.name === root.name && Math.abs(d.line - root.startLine) <= 3);
    if (!def || !Number.isInteger(def.endLine) || typeof def.macro === "string") continue;
    const lines = await readLines(cwd, root.filePath);
    if (!lines) continue;
    const starts = new Set(defs.map((d) => d.line)); // a nested definition's line names it, calls nothing
    const last = Math.min(def.endLine, lines.length, def.line + MOST_BODY_LINES);
    let taken = 0;
    for (let line = def.line + 1; line <= last && taken < NAMES_PER_BODY && calls.length < MOST_NAMES; line += 1) {
      const text = lines[line - 1].slice(0, MAX_LINE);
      if (starts.has(line) || isCommentLine(text)) continue;
      for (const m of text.matchAll(CALLED)) {
        const name = m[1];
        if (NOT_CALLS.has(name) || seen.has(`${root.id}\0${name}`)) continue;
        seen.add(`${root.id}\0${name}`);
        calls.push({ root, name, line });
        taken += 1;
        if (taken >= NAMES_PER_BODY || calls.length >= MOST_NAMES) break;
      }
    }
  }
  return calls;
}

/**
 * The text step from `roots` (`from`'s definitions without a callee in the graph): `[{ root,
 * node, edge, json }]`, each a definition CodeGraph has of a name a root's body calls, `edge` the
 * text-match hop to it, `json` CodeGraph's callees answer it came from (its callees, for the
 * walk's next level). `lookup(name)`: CodeGraph's `callees <name> --json` as `{ json }`.
 */
async function textStep(roots, { cwd, outline, lines = linesOf, lookup, forwardStep }) {
  const calls = await bodyNames(roots, cwd, outline, lines);
  const names = [...new Set(calls.map((c) => c.name))];
  const answers = await Promise.allSettled(names.map((n) => lookup(n)));
  const cancelled = answers.find((a) => a.status === "rejected" && a.reason?.code === "CODEGRAPH_CANCELLED");
  if (cancelled) throw cancelled.reason;
  const steps = new Map();
  names.forEach((n, i) => {
    const a = answers[i];
    if (a.status === "fulfilled" && a.value?.json) steps.set(n, forwardStep(a.value.json));
  });
  const out = [];
  for (const c of calls) {
    const s = steps.get(c.name);
    for (const node of s?.roots ?? []) {
      if (!CALLABLE.has(node.kind) || node.id === c.root.id) continue;
      const edge = { source: c.root.id, target: node.id, text: true, call: true, file: c.root.filePath, line: c.line };
      out.push({ root: c.root, node, edge, step: s });
    }
  }
  return out;
}

module.exports = { CALLED, NOT_CALLS, textStep };
