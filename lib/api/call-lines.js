// The line each hop's call names its callee on. CodeGraph 1.6.1 gives a call edge the line its
// call expression starts on: a call spread over lines (`self.driver()` then `.reregister(…)`)
// is said at a line without the callee's name. The caller's file is read (bounded) and the hop
// moved to the first line at or after CodeGraph's, within a few, that names the callee; where
// none does (or the file cannot be read) the hop says the call starts there, never that the
// name is on that line.

const fs = require("node:fs/promises");
const path = require("node:path");
const { mention } = require("./call-graph.js");

/** A caller's file is read only up to this size. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Lines after CodeGraph's a multi-line call may name its callee on. */
const WINDOW = 6;
/** A line is looked at up to this length. */
const MAX_LINE = 4000;

/** The lines of `file` under `cwd`, or null (outside it, missing, too large, unreadable). */
async function linesOf(cwd, file) {
  try {
    const root = path.resolve(cwd);
    const full = path.resolve(root, file);
    if (full !== root && !full.startsWith(`${root}${path.sep}`)) return null;
    const stat = await fs.stat(full);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
    return (await fs.readFile(full, "utf8")).split("\n");
  } catch {
    return null;
  }
}

/**
 * `routes` (`{ nodes, edges }`, edges[i] from nodes[i] to nodes[i + 1]) with each graph hop's
 * line where the source names its callee, else the hop marked `starts` (the call starts at its
 * line). Text matches keep theirs (the scan read the line); an interface's link has no line.
 */
async function placedCalls(routes, cwd, readLines = linesOf) {
  const files = new Map();
  const read = (file) => {
    if (!files.has(file)) files.set(file, readLines(cwd, file));
    return files.get(file);
  };
  const placed = [];
  for (const route of routes) {
    const edges = [];
    for (let i = 0; i < route.edges.length; i += 1) {
      const e = route.edges[i];
      if (e.text || e.implementation || e.line === null) {
        edges.push(e);
        continue;
      }
      const lines = await read(route.nodes[i].filePath);
      const name = route.nodes[i + 1].name;
      let line = null;
      for (let l = e.line; lines && l <= Math.min(lines.length, e.line + WINDOW) && line === null; l += 1)
        if (mention(lines[l - 1].slice(0, MAX_LINE), name)) line = l;
      edges.push(line === null ? { ...e, starts: true } : { ...e, line });
    }
    placed.push({ ...route, edges });
  }
  return placed;
}

module.exports = { linesOf, placedCalls };
