// Which git worktree a directory is in, from its files alone (no git process: the scan below the
// workspace and `/codegraph projects add` ask it of many directories): the nearest `.git` above
// it, a directory (a main checkout: its own repository) or a file naming its git directory
// (`gitdir: <common>/worktrees/<name>` for a linked worktree; a submodule's names its own
// repository). A `.git` file is the repository's, so it is read as any settings file is: a
// regular file only, bounded, never blocking (lib/pi/settings-file.js).

const fs = require("node:fs");
const path = require("node:path");
const { readSettingsFile } = require("../settings-file.js");
const { canonicalPath } = require("../../contract/files.js");

/** `p` (made absolute) with its links resolved (contract/files.js canonicalPath). */
const real = (p) => canonicalPath(path.resolve(p));

/** The worktree holding `dir`: `{ top, common }` (its directory; the repository's shared git directory), or null. */
function worktreeOf(dir) {
  for (let d = real(dir); ; ) {
    const marker = path.join(d, ".git");
    let st = null;
    try {
      st = fs.lstatSync(marker);
    } catch {}
    if (st?.isDirectory()) return { top: d, common: real(marker) };
    if (st?.isFile()) {
      const gitdir = /^gitdir: *(.+?) *$/m.exec(readSettingsFile(marker).text ?? "")?.[1];
      if (!gitdir) return null;
      const own = real(path.resolve(d, gitdir));
      const linked = path.basename(path.dirname(own)) === "worktrees";
      return { top: d, common: linked ? path.dirname(path.dirname(own)) : own };
    }
    const parent = path.dirname(d);
    if (parent === d) return null;
    d = parent;
  }
}

/**
 * Whether `dir` is in another worktree of the repository `workspace` is in (`workspace`'s own
 * worktree, given as `worktreeOf`'s answer, so a scan asks it once): answers from an index there
 * would be another branch's.
 */
function inOtherWorktree(dir, workspace) {
  if (!workspace) return false;
  const there = worktreeOf(dir);
  return there !== null && there.common === workspace.common && there.top !== workspace.top;
}

module.exports = { inOtherWorktree, worktreeOf };
