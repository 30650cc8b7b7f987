// What git says changed, read: `git diff HEAD --unified=0` into files and their new-side line
// ranges, `git ls-files` into whole files. A pure deletion touches the line it was cut after (on
// the new side), so the definition around that place counts as changed.

const { CODEGRAPH_EXTENSIONS } = require("../contract/source-changes.js");

const INDEXED = new Set(CODEGRAPH_EXTENSIONS);

/** Whether CodeGraph indexes files named like `p` (by extension). */
const isIndexedLanguage = (p) => INDEXED.has(String(p).split("/").at(-1).split(".").slice(1).at(-1)?.toLowerCase());

/** A path as git prints it: C-quoted ("a\tb") when it holds special bytes, else as it is. */
function unquote(p) {
  if (!p.startsWith('"') || !p.endsWith('"')) return p;
  const bytes = [];
  const body = p.slice(1, -1);
  const esc = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== "\\") bytes.push(...Buffer.from(c));
    else if (/[0-7]/.test(body[i + 1] ?? "")) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else bytes.push(esc[body[++i]] ?? body.charCodeAt(i));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** `+++ b/path` or `--- a/path` → path (`/dev/null` → null). */
function sidePath(line, prefix) {
  const raw = unquote(line.slice(4).replace(/\t$/, ""));
  if (raw === "/dev/null") return null;
  return raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
}

/**
 * `git diff --unified=0` text → `[{ path, ranges: [[from, to]], deleted, added }]`: each file's
 * changed new-side lines (1-based, inclusive). A hunk that only removes lines gives `[c, c]`
 * with `cut: true` (the lines were cut after line c; 0 at the top). A deleted file has
 * `deleted: true` and no ranges; a new one `added: true`.
 */
function parseDiff(text) {
  const files = [];
  let file = null;
  let oldPath = null;
  for (const line of String(text).split("\n")) {
    if (line.startsWith("diff --git ")) {
      file = null;
      oldPath = null;
    } else if (line.startsWith("--- ")) oldPath = sidePath(line, "a/");
    else if (line.startsWith("+++ ")) {
      const newPath = sidePath(line, "b/");
      file = { path: newPath ?? oldPath, ranges: [], deleted: newPath === null, added: oldPath === null };
      if (file.path !== null) files.push(file);
    } else if (line.startsWith("@@ ") && file) {
      const m = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const start = Number(m[2]);
      const count = m[3] === undefined ? 1 : Number(m[3]);
      if (count > 0) file.ranges.push({ from: start, to: start + count - 1 });
      else if (!file.deleted) file.ranges.push({ from: start, to: start, cut: true });
    }
  }
  return files;
}

/** `git ls-files` text → paths (one a line, C-quoted ones unquoted). */
const parseFileList = (text) =>
  String(text)
    .split("\n")
    .filter(Boolean)
    .map((l) => unquote(l));

module.exports = { isIndexedLanguage, parseDiff, parseFileList, unquote };
