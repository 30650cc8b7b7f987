// The product's own statements about places, checked against the source (issue 45: "0 false
// statements"). Where the product speaks in its own words, not CodeGraph's, it asserts places:
//   - a call-site note: 'Calls of "X" in the source that CodeGraph's answer does not list (...):
//     src/a.rs:343, 350 in spawn, …' (lib/words/call-sites.js): X is code at each line, within Y;
//   - a path hop: 'A (src/a.rs:10) → calls B at src/a.rs:14 → B (src/b.rs:3)': A is defined at
//     its line, B is code at the call's line, and that line is inside A's definition;
//   - a change: 'symbol (src/a.rs:10)': the symbol is defined at that line.
// A place is false when the line is not in the file (its count: a last line without "\n" counts),
// the name is not code on that line (a comment, a docstring, a string) or Y's definition does not
// contain the line. Where the bench cannot find Y's definition the claim is left unchecked (said
// apart); where the product itself says "text match", only the line and the text are checked.

import fs from "node:fs";
import path from "node:path";
import { codeHas, definitionRanges, readSource } from "./source-lines.mjs";

const EXT = "(?:rs|py|tsx?|m?js|cjs)";
const FILE = `[\\w$@+./-]+\\.${EXT}`;
const NAME = "[\\w$](?:[\\w$.:]*[\\w$])?";
const NOTE =
  /(?:Calls|Uses|Implementations) of "([^"]+)" in the source that CodeGraph's answer does not list[^\n]*?\): ([^\n]*)/gu;
const PLACE = new RegExp(
  `(${FILE}):(\\d+(?:, \\d+(?![\\w./:]))*)(?: in (\\$?${NAME}))?( \\(inside a [\\w]+! macro block[^)]*\\))?( \`[^\`]*\`)?`,
  "gu",
);
const DEFINED = new RegExp(`(?<![\\w$.:])(${NAME}) \\((${FILE}):(\\d+)(?:[-–]\\d+)?\\)`, "gu");
const CALLS = new RegExp(`\\bcalls (${NAME}) at (${FILE}):(\\d+)`, "gu");
const AT_IN = new RegExp(`(?<![\\w$.:])(${NAME}) at (${FILE}):(\\d+) in (\\$?${NAME})`, "gu");

const lastPart = (name) => name.split(/::|\./u).filter(Boolean).at(-1) ?? name;

/** A reader of the corpus' files, each read once. */
function sources(dir) {
  const cache = new Map();
  return (file) => {
    if (!cache.has(file)) {
      const full = path.join(dir, file);
      let src = null;
      try {
        if (fs.statSync(full).isFile()) src = readSource(fs.readFileSync(full, "utf8"), file);
      } catch {}
      cache.set(file, src);
    }
    return cache.get(file);
  };
}

/** The first code line at or after `line` (a definition's line may be its attribute or decorator). */
function definitionLine(src, line) {
  for (let l = line; l <= Math.min(src.count, line + 10); l++) {
    const code = src.code[l - 1].trim();
    if (code && !code.startsWith("#[") && !code.startsWith("@")) return l;
  }
  return line;
}

/**
 * One claim judged: `{ ok: true }`, `{ ok: false, why }` or `{ unchecked: why }`.
 * `kind`: "code" (name is code at line), "defined" (name defined at line), "text" (a text match).
 */
function judge(read, { file, line, name, within, kind }) {
  const src = read(file);
  if (!src) return { ok: false, why: `${file} is not a file of the tree` };
  if (!(line >= 1 && line <= src.count)) return { ok: false, why: `${file} has ${src.count} lines, not ${line}` };
  const short = lastPart(name);
  if (kind === "text") {
    return src.lines[line - 1].includes(short)
      ? { ok: true }
      : { ok: false, why: `"${short}" is not on ${file}:${line}` };
  }
  const at = kind === "defined" ? definitionLine(src, line) : line;
  if (!codeHas(src.code[at - 1], short)) {
    const inText = src.lines[at - 1].includes(short);
    return { ok: false, why: `"${short}" is ${inText ? "in a comment or string, not code," : "not"} on ${file}:${at}` };
  }
  if (kind === "defined" && src.lang) {
    const starts = definitionRanges(src.code, src.lang, short).some((r) => r.start >= line && r.start <= at);
    if (!starts) return { ok: false, why: `no definition of "${short}" starts at ${file}:${line}` };
  }
  if (within) {
    if (within.startsWith("$")) return { ok: false, why: `"${within}" is a macro variable, not a definition` };
    const ranges = definitionRanges(src.code, src.lang, within);
    if (ranges.length === 0) return { unchecked: `no definition of "${within}" found in ${file}` };
    if (!ranges.some((r) => r.start <= line && line <= r.end)) {
      const shown = ranges.map((r) => `${r.start}-${r.end}`).join(", ");
      return { ok: false, why: `${file}:${line} is not inside ${within} (lines ${shown})` };
    }
  }
  return { ok: true };
}

/** The claims of a call-site note's places. */
function noteClaims(text) {
  const claims = [];
  for (const note of text.matchAll(NOTE)) {
    const [, name, places] = note;
    for (const p of places.matchAll(PLACE)) {
      const [, file, lines, within, macro, quote] = p;
      for (const line of lines.split(", ").map(Number)) {
        const kind = quote ? "text" : "code";
        claims.push({ file, line, name, within: macro ? undefined : within, kind, said: p[0] });
      }
    }
  }
  return claims;
}

/** The claims of an answer the product writes itself (a path, a changes answer). */
function ownClaims(text) {
  const claims = [];
  for (const line of text.split("\n")) {
    const kind = /text match/u.test(line) ? "text" : null;
    const defs = [...line.matchAll(DEFINED)].map((m) => ({ at: m.index, name: m[1], file: m[2], line: Number(m[3]) }));
    for (const d of defs) claims.push({ ...d, kind: kind ?? "defined", said: `${d.name} (${d.file}:${d.line})` });
    for (const m of line.matchAll(CALLS)) {
      const caller = defs.filter((d) => d.at < m.index).at(-1);
      const claim = { name: m[1], file: m[2], line: Number(m[3]), kind: kind ?? "code", said: m[0] };
      if (caller) {
        if (caller.file !== claim.file) claims.push({ ...claim, wrongFile: caller.name });
        else claims.push({ ...claim, within: caller.name });
      } else claims.push(claim);
    }
    for (const m of line.matchAll(AT_IN)) {
      claims.push({ name: m[1], file: m[2], line: Number(m[3]), within: m[4], kind: kind ?? "code", said: m[0] });
    }
  }
  return claims;
}

/**
 * The product's statements about places in one answer (`tool`, `args`: the call that gave it),
 * judged against the tree at `dir`: `{ checked, false: [{ said, why }], unchecked: [{ said, why }] }`.
 */
export function checkClaims(text, { tool, args }, dir) {
  const read = sources(dir);
  const own = tool === "codegraph_changes" || (tool === "codegraph_relations" && args?.relation === "path");
  const claims = [...noteClaims(text), ...(own ? ownClaims(text) : [])];
  const out = { checked: 0, false: [], unchecked: [] };
  for (const c of claims) {
    if (c.wrongFile) {
      out.checked++;
      out.false.push({ said: c.said, why: `the call is said in ${c.wrongFile}, defined in another file` });
      continue;
    }
    const j = judge(read, c);
    if (j.unchecked) out.unchecked.push({ said: c.said, why: j.unchecked });
    else {
      out.checked++;
      if (!j.ok) out.false.push({ said: c.said, why: j.why });
    }
  }
  return out;
}

/** Judges truth items as claims of definitions (the bench's own data, checked the same way). */
export function checkTruth(items, dir) {
  const read = sources(dir);
  return items
    .filter((t) => t.symbol && t.line)
    .map((t) => ({ t, j: judge(read, { file: t.path, line: t.line, name: t.symbol, kind: "defined" }) }))
    .filter(({ j }) => !j.ok);
}
