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
  if (kind === "text" && !src.lines[line - 1].includes(short))
    return { ok: false, why: `"${short}" is not on ${file}:${line}` };
  if (kind === "text" && !within) return { ok: true };
  const at = kind === "defined" ? definitionLine(src, line) : line;
  if (kind !== "text" && !codeHas(src.code[at - 1], short)) {
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

/** A blind-spot line: where the source defines a name CodeGraph's answer lacks (lib/words/blind-spots.js). */
const DEFINED_AT =
  /(?:Not in CodeGraph's index: "([^"]+)" is defined at|CodeGraph's answer does not mention "([^"]+)"; the source defines it at) ([^\n]*?); read it there\./gu;

/** The claims of a call-site note's places, and of a blind-spot line's definitions. */
function noteClaims(text) {
  const claims = [];
  for (const m of text.matchAll(DEFINED_AT)) {
    const name = m[1] ?? m[2];
    for (const p of m[3].matchAll(new RegExp(`(${FILE}):(\\d+)`, "gu")))
      claims.push({ name, file: p[1], line: Number(p[2]), kind: "defined", said: `"${name}" is defined at ${p[0]}` });
  }
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

/** The facts inside a name's parentheses: `(kind in Parent, a macro_rules! template of m, file:line-end; uses it at file:line)`. */
function inParens(content) {
  const place = new RegExp(`(${FILE}):(\\d+)`, "u").exec(content);
  if (!place) return null;
  const parent = new RegExp(`^[\\w -]+? in (\\$?${NAME})(?:,|$)`, "u").exec(content.slice(0, place.index));
  const uses = new RegExp(`uses it at (${FILE}):(\\d+)`, "u").exec(content);
  return {
    file: place[1],
    line: Number(place[2]),
    parent: parent?.[1],
    template: /macro_rules! template/u.test(content),
    uses: uses && { file: uses[1], line: Number(uses[2]) },
  };
}

/**
 * The claims of an answer the product writes itself (a path, a changes answer): each `Name
 * (…file:line…)` a definition there (inside its parent when one is said); each hop's `calls B at
 * file:line` B at that line inside the hop before ("text match": the text only); a dependent's
 * `uses it at file:line` the changed symbol there, inside the dependent; a text search's
 * `file:line \`text\`` the searched name in that line's text.
 */
function ownClaims(text) {
  const claims = [];
  let changed = null;
  let searched = null;
  for (const line of text.split("\n")) {
    if (/^- /u.test(line)) changed = new RegExp(`^- (${NAME}) \\(`, "u").exec(line)?.[1] ?? null;
    const search = /text search for "([^"]+)"/u.exec(line);
    if (search) searched = search[1];
    else if (searched && /^\s{4}/u.test(line)) {
      for (const m of line.matchAll(new RegExp(`(${FILE}):(\\d+)(?: in (\\$?${NAME}))? \``, "gu")))
        claims.push({ name: searched, file: m[1], line: Number(m[2]), within: m[3], kind: "text", said: m[0] });
    } else searched = null;
    const defs = [];
    for (const m of line.matchAll(new RegExp(`(?<![\\w$.:/])(${NAME}) \\(([^()]*)\\)`, "gu"))) {
      const p = inParens(m[2]);
      // A file as a dependent (CodeGraph's file node: "models.py (file, …:1)") names no definition.
      if (!p || /^file\b/u.test(m[2]) || new RegExp(`\\.${EXT}$`, "u").test(m[1])) continue;
      const d = { at: m.index, name: m[1], file: p.file, line: p.line };
      defs.push(d);
      const kind = p.template ? "text" : "defined";
      claims.push({ ...d, kind, within: p.parent, said: `${d.name} (${d.file}:${d.line})` });
      if (p.uses && changed) {
        const said = `${d.name} uses ${changed} at ${p.uses.file}:${p.uses.line}`;
        claims.push({ name: changed, ...p.uses, kind: "code", within: d.name, said });
      }
    }
    for (const m of line.matchAll(
      new RegExp(`\\b(?:calls|names|passes) (${NAME}) (?:as a value )?at (${FILE}):(\\d+)`, "gu"),
    )) {
      const kind = line.startsWith(" (text match", m.index + m[0].length) ? "text" : "code";
      const caller = defs.filter((d) => d.at < m.index).at(-1);
      const claim = { name: m[1], file: m[2], line: Number(m[3]), kind, said: m[0] };
      if (caller && caller.file !== claim.file) claims.push({ ...claim, wrongFile: caller.name });
      else claims.push({ ...claim, within: caller?.name });
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
