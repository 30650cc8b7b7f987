// The words of CODEGRAPH_GIT (git could not say what changed): its headline and its remediation,
// from the facts both runners hand over (crates/core/src/git_command.rs, git_run.rs).

const { shownPath } = require("./paths.js");

/** `reason.is` → what went wrong. */
const GIT_REASONS = {
  notFound: (r) =>
    r.skipped
      ? `no git was found on PATH outside the workspace (${shownPath(r.skipped)} is inside it and was not run)`
      : "no git was found on PATH",
  notRepository: () => "the workspace is not inside a git repository",
  noHead: () => "the repository has no commit yet (no HEAD)",
  unsafeOwner: () => "git refuses the repository: it is owned by another user (safe.directory)",
  exit: (r) => `git exited with code ${r.exitCode}${r.stderrTail?.trim() ? `: ${firstLine(r.stderrTail)}` : ""}`,
  timeout: (r) => `git did not finish within ${r.timeoutMs} ms and was stopped`,
  spawn: (r) => `git could not be started (${r.os})`,
  invalid: (r) => `the git command description is invalid (${r.problem?.is})`,
};

const firstLine = (text) => String(text).trim().split("\n")[0].slice(0, 200);

/** CODEGRAPH_GIT's headline. */
function gitHeadline(f) {
  const words = GIT_REASONS[f.reason?.is];
  const what = words ? words(f.reason) : `(unnamed reason ${JSON.stringify(f.reason?.is)})`;
  return `git ${f.subcommand ?? ""} could not say what changed: ${what}`.replace("git  ", "git ");
}

/** CODEGRAPH_GIT's remediation. */
function gitRemediation(f) {
  switch (f.reason?.is) {
    case "notFound":
      return "Install git and make sure it is on PATH (outside the workspace); without git, codegraph_changes answers from the files changed since the index was written.";
    case "notRepository":
      return "Nothing to fix: outside git, codegraph_changes answers from the files changed since the index was written.";
    case "noHead":
      return "Commit once (git commit) so that changes have something to be compared with; until then every file counts as new.";
    case "unsafeOwner":
      return "Run Pi as the repository's owner, or add it with `git config --global --add safe.directory <path>` if you trust it.";
    case "timeout":
      return "The working tree is very large or the disk is slow: ask again, or narrow the change set (commit or stash part of it).";
    default:
      return "Run `git diff HEAD --stat` in the workspace to see what git says.";
  }
}

module.exports = { GIT_REASONS, gitHeadline, gitRemediation };
