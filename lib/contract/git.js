// git as a child, described as data like CodeGraph's commands (./commands.js): which read-only
// subcommand, its arguments, its caps and its deadline. Both runners hand a description to the
// core, which reads and checks it (src/args/git.rs, crates/core/src/git_command.rs: an allowlist of
// subcommands, arguments that are options or HEAD) and runs it with CodeGraph's rules: argv only,
// its safety settings first (no hooks, fsmonitor, pager, external diff or textconv, paths
// unquoted, C locale), cwd = the workspace, `git` found on PATH outside the workspace, a quiet
// environment, bounded output, timeout, cancel, the whole tree killed.

/** The arguments `worktree` must have, exactly: the list of the repository's worktrees. */
const WORKTREE_LIST = Object.freeze(["list", "--porcelain"]);
/** What a git run may take by default: 10 s and 4 MiB of output (a diff of the whole tree is read in bounded pieces). */
const GIT_TIMEOUT_MS = 10_000;
const GIT_MAX_BYTES = 4 * 1024 * 1024;
const GIT_MAX_LINES = 200_000;

/**
 * A description of `git <subcommand> <args...>`: `{ program: "git", subcommand, args, maxBytes,
 * maxLines, timeoutMs }`. `args` are ours (never the model's or the user's text).
 */
function gitCommand(subcommand, args = [], spec = {}) {
  return {
    program: "git",
    subcommand,
    args: [...args],
    maxBytes: spec.maxBytes ?? GIT_MAX_BYTES,
    maxLines: spec.maxLines ?? GIT_MAX_LINES,
    timeoutMs: spec.timeoutMs ?? GIT_TIMEOUT_MS,
  };
}

/** `git diff HEAD --unified=0 --relative`: what changed in the working tree (staged and not) under the workspace. */
const diffHeadCommand = () => gitCommand("diff", ["HEAD", "--unified=0", "--relative"]);
/** `git rev-parse --verify --quiet HEAD`: whether the repository has a commit (exit 1, silent: none); outside git it fails. */
const headCommand = () => gitCommand("rev-parse", ["--verify", "--quiet", "HEAD"], { maxBytes: 4096, maxLines: 10 });
/** `git ls-files --others --exclude-standard`: the untracked files under the workspace, not ignored. */
const untrackedCommand = () => gitCommand("ls-files", ["--others", "--exclude-standard"]);
/** `git ls-files --cached`: every tracked file (a repository without HEAD: all of them are new). */
const trackedCommand = () => gitCommand("ls-files", ["--cached"]);
/** `git rev-parse --absolute-git-dir`: this worktree's git directory (its reflog: whether HEAD moved). */
const gitDirCommand = () => gitCommand("rev-parse", ["--absolute-git-dir"], { maxBytes: 8192, maxLines: 10 });
/**
 * `git diff --name-only --relative`: the files under the workspace that differ from git's index
 * (a line each, C-quoted when odd: the runner's text has no NUL). git checks them on several
 * threads (`ls-files -m` on one), and beside `untrackedCommand`, run at the same time.
 */
const unstagedCommand = () => gitCommand("diff", ["--name-only", "--relative"]);
/** `git diff --cached --name-only --relative`: the files staged since HEAD, under the workspace. */
const stagedCommand = () => gitCommand("diff", ["--cached", "--name-only", "--relative"]);
/** `git worktree list --porcelain`: the repository's worktrees, the main one first. */
const worktreesCommand = () => gitCommand("worktree", [...WORKTREE_LIST], { maxBytes: 256 * 1024, maxLines: 20_000 });
/** `git rev-parse --show-toplevel`: the worktree the workspace is in. */
const toplevelCommand = () => gitCommand("rev-parse", ["--show-toplevel"], { maxBytes: 8192, maxLines: 10 });

module.exports = {
  diffHeadCommand,
  gitCommand,
  gitDirCommand,
  headCommand,
  stagedCommand,
  toplevelCommand,
  unstagedCommand,
  worktreesCommand,
  trackedCommand,
  untrackedCommand,
};
