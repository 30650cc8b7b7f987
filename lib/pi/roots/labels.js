// What each root is called, and which roots the model is offered. A label is a function of the
// workspace and the root's directory alone, never of the order the roots were found or added in:
// "." is the workspace's own; a root inside the workspace is labelled by its workspace-relative
// path (`packages/api`); a root outside under the user's home by its path from there
// (`~/src/django`, as a person writes it; an enclosing project too), any other outside root by a
// path that starts with `..` (`../elsewhere/api`, `../../django` for an enclosing one): no root
// inside can have either. A label that had to
// lose something (a character a label cannot hold, or length past MAX_LABEL_CHARS) keeps what
// fits of the path's last components (after `…/` when cut) and ends with `~` and 8 hex digits of the directory's hash, characters no
// lossless label holds. So a later scan, add or remove never gives an existing label to another
// directory, and a scanned root and an added one never compete for a label.

const crypto = require("node:crypto");
const os = require("node:os");
const path = require("node:path");
const { isWithin } = require("../../contract/files.js");
const { MAX_OFFERED_ROOTS } = require("../../contract/limits.js");

/** The workspace's own index. */
const WORKSPACE_LABEL = ".";
/** What a label may hold (it is a schema enum value and a word of `/codegraph`): anything else is lossy. */
const LABEL_OTHER = /[^\p{L}\p{N}._@+/-]/gu;
/** The longest label (a schema enum value the model reads in every request). */
const MAX_LABEL_CHARS = 40;
/** A lossy label's hash: `~` and this many hex digits of sha256(directory). */
const HASH_CHARS = 8;

const posixRel = (from, to) => path.relative(from, to).split(path.sep).join("/");

/** The hash that ends a lossy label: stable for a directory, different for another (but for a 32-bit collision). */
const dirHash = (dir) => crypto.createHash("sha256").update(dir).digest("hex").slice(0, HASH_CHARS);

/**
 * A label that lost something: `outside` ones begin `../…/`; then the path `clean` (odd
 * characters replaced) when it fits, else `…/` and as many of its last components as fit (the
 * last one's beginning when even it does not), then `~` and the directory's hash.
 */
function lossyLabel(outside, clean, dir) {
  const hash = `~${dirHash(dir)}`;
  const head = outside ? "../…/" : "";
  if (head.length + clean.length + hash.length <= MAX_LABEL_CHARS) return `${head}${clean}${hash}`;
  const cut = outside ? head : "…/";
  const room = MAX_LABEL_CHARS - cut.length - hash.length;
  const parts = clean.split("/");
  let kept = parts.pop();
  while (parts.length > 0 && parts.at(-1).length + 1 + kept.length <= room) kept = `${parts.pop()}/${kept}`;
  kept = kept.slice(0, room);
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${cut}${kept}${hash}`;
}

/** The user's home directory (resolved), when it is one a label can start from (not the root). */
function homeOf() {
  let home;
  try {
    home = path.resolve(os.homedir());
  } catch {
    return null;
  }
  return home === path.parse(home).root ? null : home;
}

/**
 * The label of the root at `dir` (absolute, resolved) in the workspace `workspace` (absolute,
 * resolved). Pure: the same directory always has the same label in one workspace.
 */
function rootLabel(workspace, dir) {
  if (dir === workspace) return WORKSPACE_LABEL;
  if (isWithin(dir, workspace)) {
    const rel = posixRel(workspace, dir);
    const clean = rel.replace(LABEL_OTHER, "_");
    if (clean === rel && rel.length <= MAX_LABEL_CHARS) return rel;
    return lossyLabel(false, clean, dir);
  }
  // Outside, under the user's home (not the workspace's own home): `~/` and the path from there.
  const home = homeOf();
  if (home && isWithin(dir, home) && dir !== home) {
    const fromHome = posixRel(home, dir);
    const clean = fromHome.replace(LABEL_OTHER, "_");
    if (clean === fromHome && fromHome.length + 2 <= MAX_LABEL_CHARS) return `~/${fromHome}`;
    return lossyLabel(true, clean, dir);
  }
  // Elsewhere: the path from the workspace; an enclosing directory by its name (`../../django`,
  // not `..`), so its label says which project it is.
  let rel = posixRel(workspace, dir);
  const base = path.basename(dir);
  if (rel.split("/").every((part) => part === "..") && base !== "") rel = `${rel}/../${base}`;
  const clean = rel.replace(LABEL_OTHER, "_");
  // On another drive (Windows) there is no relative path: the name only.
  if (!rel.startsWith("../")) return lossyLabel(true, (base || "root").replace(LABEL_OTHER, "_"), dir);
  if (clean === rel && rel.length <= MAX_LABEL_CHARS) return rel;
  return lossyLabel(true, clean.replace(/^(\.\.\/)+/, ""), dir);
}

/**
 * Which of `roots` (rootList's, each with `indexed`) the model is offered: the indexed ones in
 * this order, the first MAX_OFFERED_ROOTS: the workspace's own, those the user added (`added`:
 * their directories), then those the scan found, shallowest first (the scan's order). Sets
 * `offered` on each root; an indexed root left out gets `notOffered: "tooMany"`.
 */
function markOffered(roots, added = []) {
  const rank = (r) => (r.source === "workspace" ? 0 : added.includes(r.dir) ? 1 : 2);
  const indexed = roots.filter((r) => r.indexed);
  const order = indexed.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i);
  const offered = new Set(order.slice(0, MAX_OFFERED_ROOTS).map((o) => o.r));
  for (const r of roots) {
    r.offered = offered.has(r);
    if (r.indexed && !r.offered) r.notOffered = "tooMany";
  }
  return roots;
}

module.exports = { MAX_LABEL_CHARS, MAX_OFFERED_ROOTS, WORKSPACE_LABEL, markOffered, rootLabel };
