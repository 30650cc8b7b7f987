// git as a child, described as data like CodeGraph's commands (./commands.js): which read-only
// subcommand, its arguments, its caps and its deadline. Both runners run a description with
// CodeGraph's rules (argv only, cwd = the workspace, `git` found on PATH outside the workspace,
// a quiet environment, bounded output, timeout, cancel, the whole tree killed):
// crates/core/src/git_run.rs and lib/runners/node/git-run.js. The argv is built here once, so
// that the repository's own configuration and attributes can start nothing: no hooks, no
// fsmonitor, no pager, no external diff, no textconv, paths unquoted, C locale.

const { IS_WINDOWS, MIN_CAP_BYTES, MIN_CAP_LINES, LARGEST_CAP_BYTES, LARGEST_CAP_LINES } = require("./limits.js");

/**
 * The only subcommands a description may name: each reads, none writes the repository (`worktree`
 * only as WORKTREE_LIST, the one form of it that reads).
 */
const GIT_SUBCOMMANDS = Object.freeze(["diff", "ls-files", "rev-parse", "worktree"]);
/** The arguments `worktree` must have, exactly: the list of the repository's worktrees. */
const WORKTREE_LIST = Object.freeze(["list", "--porcelain"]);
/** What a git run may take by default: 10 s and 4 MiB of output (a diff of the whole tree is read in bounded pieces). */
const GIT_TIMEOUT_MS = 10_000;
const GIT_MAX_BYTES = 4 * 1024 * 1024;
const GIT_MAX_LINES = 200_000;
const MAX_GIT_ARGS = 16;
const MAX_GIT_ARG_BYTES = 512;

/** A hooks path nothing can be found under (the core's NO_HOOKS, for git itself). */
const NO_HOOKS = IS_WINDOWS ? "|no-hooks|" : "/dev/null";

/**
 * The settings every git run gets before its subcommand, whatever the repository's config says:
 * ours come last on the command line, so they win over every config file.
 */
const GIT_SAFETY = Object.freeze([
  "-c",
  "core.fsmonitor=false",
  "-c",
  `core.hooksPath=${NO_HOOKS}`,
  "-c",
  "diff.external=",
  "-c",
  "core.quotePath=false",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "color.ui=false",
  "--no-pager",
  "--no-optional-locks",
]);

/** What `diff` always gets: no external diff, no textconv, no color, no renames, fixed prefixes. */
const DIFF_SAFETY = Object.freeze([
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
  "--no-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
]);

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

/**
 * The description's problem, or null: `{ is: "gitSubcommand" | "gitArgs" | "caps" | "timeoutMs" }`.
 * An argument is an option (`-x`, `--name[=value]`) or `HEAD`, never with NUL or a line break.
 */
function gitCommandProblem(c) {
  if (c === null || typeof c !== "object" || c.program !== "git") return { is: "gitProgram" };
  if (!GIT_SUBCOMMANDS.includes(c.subcommand)) return { is: "gitSubcommand", allowed: GIT_SUBCOMMANDS };
  const args = c.args;
  if (!Array.isArray(args) || args.length > MAX_GIT_ARGS) return { is: "gitArgs", max: MAX_GIT_ARGS };
  const ok = (a) =>
    typeof a === "string" &&
    a.length <= MAX_GIT_ARG_BYTES &&
    !/[\0\n\r]/.test(a) &&
    (/^--?[a-z0-9]/.test(a) || a === "HEAD");
  const listed = c.subcommand !== "worktree" || (args.length === 2 && args.every((a, i) => a === WORKTREE_LIST[i]));
  if (!listed || (c.subcommand !== "worktree" && !args.every(ok))) return { is: "gitArgs", max: MAX_GIT_ARGS };
  const caps = [c.maxBytes, c.maxLines];
  if (!caps.every(Number.isInteger)) return { is: "caps" };
  if (c.maxBytes < MIN_CAP_BYTES || c.maxBytes > LARGEST_CAP_BYTES) return { is: "caps" };
  if (c.maxLines < MIN_CAP_LINES || c.maxLines > LARGEST_CAP_LINES) return { is: "caps" };
  if (!Number.isInteger(c.timeoutMs) || c.timeoutMs < 1 || c.timeoutMs > 60_000) return { is: "timeoutMs" };
  return null;
}

/** The argument array git runs with: the safety settings, the subcommand, its safety, its arguments. */
function gitArgv(c) {
  return [...GIT_SAFETY, c.subcommand, ...(c.subcommand === "diff" ? DIFF_SAFETY : []), ...c.args];
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

/** How a failed git run reads, from its exit and its (C locale) stderr: a reason tag. */
function gitExitReason(stderr) {
  const s = String(stderr ?? "");
  if (/not a git repository/i.test(s)) return "notRepository";
  if (/ambiguous argument 'HEAD'|bad revision 'HEAD'|unknown revision/i.test(s)) return "noHead";
  if (/dubious ownership|safe\.directory/i.test(s)) return "unsafeOwner";
  return "exit";
}

module.exports = {
  DIFF_SAFETY,
  GIT_SAFETY,
  GIT_SUBCOMMANDS,
  diffHeadCommand,
  gitArgv,
  gitCommand,
  gitCommandProblem,
  gitExitReason,
  gitDirCommand,
  headCommand,
  stagedCommand,
  toplevelCommand,
  unstagedCommand,
  worktreesCommand,
  trackedCommand,
  untrackedCommand,
};
