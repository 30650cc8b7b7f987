// A minimal CodeGraph index's bytes, for the tests and the roots bench (no imports: a bench
// process loads it without the test helpers).

/**
 * The first page of a minimal CodeGraph index, as a content check reads one (lib/pi/roots/index-probe.js):
 * a SQLite header (page size 4096, the fixed payload fractions), page 1 a table leaf holding the
 * definitions of CodeGraph's own tables, and a second page (a database of one page is one
 * `codegraph init` is still creating). No SQLite opens it; the fake CLI never reads it.
 */
export function indexBytes() {
  const page = Buffer.alloc(8192);
  page.write("SQLite format 3\0", 0, "latin1");
  page.writeUInt16BE(4096, 16);
  page.set([1, 1, 0, 64, 32, 32], 18);
  page.writeUInt32BE(2, 28);
  page.writeUInt32BE(4, 44);
  page.writeUInt32BE(1, 56);
  page[100] = 0x0d;
  const schema = ["nodes", "edges", "files"].map((t) => `CREATE TABLE ${t} (\n    id TEXT PRIMARY KEY\n)`).join("");
  page.write(schema, 4096 - schema.length - 8, "latin1");
  page[4096] = 0x0d;
  return page;
}
