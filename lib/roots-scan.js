// TEMPORARY stub (helper A writes the real one)
const fsp = require("node:fs/promises");
const path = require("node:path");
const HEADER = Buffer.from("SQLite format 3\0", "latin1");
async function hasIndex(dir) {
  try {
    const f = path.join(dir, ".codegraph", "codegraph.db");
    const st = await fsp.stat(f);
    if (!st.isFile()) return false;
    const h = await fsp.open(f, "r");
    try {
      const b = Buffer.alloc(16);
      await h.read(b, 0, 16, 0);
      return b.equals(HEADER);
    } finally {
      await h.close();
    }
  } catch {
    return false;
  }
}
async function scanRoots(workspace) {
  const t = performance.now();
  const own = await hasIndex(workspace);
  const roots = [];
  let dirsRead = 0;
  const walk = async (dir, depth) => {
    if (depth > 4) return;
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
      dirsRead++;
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (
        !e.isDirectory() ||
        e.name.startsWith(".") ||
        ["node_modules", "build", "vendor", "dist", "target"].includes(e.name)
      )
        continue;
      const child = path.join(dir, e.name);
      if (await hasIndex(child)) roots.push(child);
      else await walk(child, depth + 1);
    }
  };
  await walk(workspace, 1);
  return { own, roots, gated: null, truncated: null, dirsRead, unreadable: 0, ms: performance.now() - t };
}
module.exports = { hasIndex, scanRoots };
