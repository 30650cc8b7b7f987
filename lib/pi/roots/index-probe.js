// Whether a file is a CodeGraph index, read without SQLite: a valid SQLite header (the magic, a
// power-of-two page size, the fixed payload fractions) and CodeGraph's own tables (`nodes`,
// `edges`, `files`) in the schema table's pages. The schema table is page 1; in a real index it
// outgrows one page at `codegraph init` (page 1 is then an interior page pointing at its leaves),
// so its child pages are read too, at most PROBE_MAX_PAGES pages of at most 64 KiB in all.
// Opened non-blocking and re-checked as a regular file, so a FIFO swapped in cannot block; any
// error is "no". A file with SQLite's 16-byte magic and nothing of CodeGraph's is no index.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { indexDirNameFor } = require("../../contract/index-dir.js");
const { SQLITE_MAGIC } = require("../../contract/limits.js");
const { INDEX_DB_FILE, openRegular, readAt, resolvedPath } = require("../../contract/files.js");

/** Pages read at most: page 1 and its first children (CodeGraph 1.6.1's schema fills 2 leaves). */
const PROBE_MAX_PAGES = 8;
/** The table definitions every CodeGraph index has (its schema since 1.x), as SQLite stores them. */
const INDEX_TABLES = ["CREATE TABLE nodes ", "CREATE TABLE edges ", "CREATE TABLE files "].map((t) =>
  Buffer.from(t, "latin1"),
);
/** B-tree page types (SQLite file format §1.6): table interior and table leaf. */
const TABLE_INTERIOR = 0x05;
const TABLE_LEAF = 0x0d;

/** The page size a SQLite header declares (offset 16, big-endian; 1 means 65536), or 0 when not valid. */
function headerPageSize(head) {
  if (head.length < 100 || !head.subarray(0, 16).equals(SQLITE_MAGIC)) return 0;
  const raw = head.readUInt16BE(16);
  const size = raw === 1 ? 65536 : raw;
  if (size < 512 || (size & (size - 1)) !== 0) return 0;
  // Write/read versions 1 (legacy) or 2 (WAL); payload fractions 64, 32, 32 (fixed by the format).
  if (![1, 2].includes(head[18]) || ![1, 2].includes(head[19])) return 0;
  if (head[21] !== 64 || head[22] !== 32 || head[23] !== 32) return 0;
  return size;
}

/** The child page numbers of a table interior page (`page`, its header at `at`), the right-most last. */
function childPages(page, at) {
  const cells = page.readUInt16BE(at + 3);
  const kids = [];
  for (let i = 0; i < cells && kids.length < PROBE_MAX_PAGES - 2; i++) {
    const cell = page.readUInt16BE(at + 12 + 2 * i);
    if (cell + 4 > page.length) return [];
    kids.push(page.readUInt32BE(cell));
  }
  kids.push(page.readUInt32BE(at + 8));
  return kids;
}

/** Whether `file` is a CodeGraph index (see the top). Never throws. */
async function isCodegraphIndex(file) {
  let handle;
  try {
    let st;
    ({ handle, stat: st } = await openRegular(file));
    const head = await readAt(handle, 0, 100);
    const size = headerPageSize(head);
    if (size === 0) return false;
    const budget = Math.max(1, Math.min(PROBE_MAX_PAGES, Math.floor(65536 / size)));
    const first = await readAt(handle, 0, size);
    const pages = [first];
    if (first[100] === TABLE_INTERIOR) {
      for (const n of childPages(first, 100).slice(0, budget - 1)) {
        if (n < 2 || (n - 1) * size >= st.size) return false;
        const page = await readAt(handle, (n - 1) * size, size);
        if (page[0] !== TABLE_LEAF) return false;
        pages.push(page);
      }
    } else if (first[100] !== TABLE_LEAF) return false;
    return INDEX_TABLES.every((t) => pages.some((p) => p.includes(t)));
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Whether `dir` has an index (indexDir: the directory the CLI opens there, by its own rule:
 * CODEGRAPH_DIR trimmed, `.codegraph-wsl` on a Windows drive under WSL, else .codegraph):
 * `<dir>/<indexDir>/codegraph.db` is a regular file (stat follows a
 * symlink but opens nothing, so a FIFO, socket, device or directory is refused before any open)
 * that is a CodeGraph index by its content (isCodegraphIndex below: a valid SQLite header and
 * CodeGraph's own tables in the schema, a bounded read; opened non-blocking and re-checked, so a
 * file swapped for a FIFO in between cannot block). Any error: no index.
 */
async function hasIndex(dir, indexDir) {
  try {
    const name = indexDir ?? (await indexDirNameFor(await resolvedPath(dir), process.env));
    const db = path.join(dir, name, INDEX_DB_FILE);
    if (!(await fsp.stat(db)).isFile()) return false;
    return await isCodegraphIndex(db);
  } catch {
    return false;
  }
}

module.exports = { hasIndex, isCodegraphIndex };
