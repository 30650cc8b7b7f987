// Where CodeGraph may write git hooks (crates/core/src/preflight/git_hooks.rs). With file watching
// off (CODEGRAPH_NO_WATCH=1, a Windows drive under WSL) CodeGraph 1.6.1's init appends a marked
// block to the post-commit, post-merge and post-checkout hooks, and its uninit strips it again
// (sync/git-hooks.js), in whatever directory `git rev-parse --git-path hooks` names, through any
// link: another project's when `.git` is a file (`gitdir: ../other/.git`, as worktrees and
// submodules have) or a link, when `commondir` or `core.hooksPath` (any config git reads, or the
// user's GIT_*) points out, or when the workspace is a subdirectory of a repository. A command
// that writes the index therefore runs with the hooks directory pinned (environment.js's
// pinGitHooks): the workspace's own `.git/hooks` when ownGitHooks finds one, else none at all.
// Metadata only.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { IS_WINDOWS } = require("../../contract/limits.js");

/** The hooks CodeGraph writes (its DEFAULT_SYNC_HOOKS). */
const SYNC_HOOKS = ["post-commit", "post-merge", "post-checkout"];

const lstatOrError = (p) => fsp.lstat(p).catch((e) => e);
const realDir = (st) => !(st instanceof Error) && st.isDirectory();
/** Absent, or a regular file not also reached by another name (a link or a hard link carries a write elsewhere). */
const loneFileOrAbsent = (st) =>
  st instanceof Error ? st.code === "ENOENT" : st.isFile() && (IS_WINDOWS || st.nlink === 1);

/**
 * `<home>/.git/hooks`, when writing CodeGraph's hooks there writes only into the workspace: `.git`
 * is a directory of its own (not a file, not a link), `hooks` in it a directory or absent
 * (CodeGraph creates it), and each hook CodeGraph writes absent or a regular file with no other
 * name; else null. `home` is the workspace with its links resolved (CodeGraph's cwd).
 */
async function ownGitHooks(workspace, home) {
  if (!realDir(await lstatOrError(path.join(workspace, ".git")))) return null;
  const hooks = path.join(workspace, ".git", "hooks");
  const st = await lstatOrError(hooks);
  if (st instanceof Error ? st.code !== "ENOENT" : !st.isDirectory()) return null;
  if (!(st instanceof Error)) {
    const files = await Promise.all(SYNC_HOOKS.map((h) => lstatOrError(path.join(hooks, h))));
    if (!files.every(loneFileOrAbsent)) return null;
  }
  return path.join(home, ".git", "hooks");
}

module.exports = { SYNC_HOOKS, ownGitHooks };
