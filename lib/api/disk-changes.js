// Changes no Pi tool reported (a shell command, the user's editor): the source files written
// after each root's index, through the runner's `changedSource` (metadata only,
// lib/contract/source-changes.js's extensions and skipped directories): the bounded walk, which
// starts no process. When a bound ends it (a large tree), in a git repository whose HEAD has not
// moved since the index, git names the candidates (the files that differ from its index, the
// staged ones, the untracked ones it does not ignore: what it already keeps; three git runs at
// once) and only those are
// looked at: complete at any size, in git's time. When HEAD moved (a commit, a checkout or a pull
// since the index: the files it wrote are in no such list), or outside git, the walk's count
// stands, said to be a lower bound. While auto sync is on, such a large root is also watched
// (the runner's watchChanges: Linux's inotify): once git has named the candidates after the
// watch was ready, those and the files the watch saw since are looked at, with no walk and no git
// run; a watch that is lost (an overflow, the user's watch limit) hands back to git. The index is
// only `stat`ed for its last write; a root whose index time is unknown, or whose walk fails, is
// left out.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { sourceChangesRequest } = require("../contract/source-changes.js");
const { gitDirCommand, stagedCommand, unstagedCommand, untrackedCommand } = require("../contract/git.js");
const { indexWrittenAt } = require("./staleness.js");
const { parseFileList } = require("./git-diff.js");

/** The paths of a git run (git-diff.js parseFileList), or null when its caps cut the list (then it is not all of them). */
const pathList = (out) => (!out || out.truncated ? null : parseFileList(out.text));

/**
 * The files git names as changed in `dir` (relative, `/`-separated), when that list is complete
 * for changes after `sinceMs`: null outside git, without git, when HEAD moved after it (or its
 * reflog cannot tell), when a list was cut, or when it names a nested repository (a directory).
 */
async function gitCandidates(runGit, dir, sinceMs) {
  if (typeof runGit !== "function") return null;
  try {
    const gitDir = (await runGit(gitDirCommand(), dir)).text.trim();
    if (!path.isAbsolute(gitDir)) return null;
    const moved = await fsp.stat(path.join(gitDir, "logs", "HEAD")).then(
      (st) => st.mtimeMs > sinceMs,
      () => true,
    );
    if (moved) return null;
    // Three lists at once: on 300,000 files 0.45 s, where `ls-files -m -o` alone took 0.70 s.
    const runs = [unstagedCommand(), untrackedCommand(), stagedCommand()].map((c) => runGit(c, dir));
    const lists = (await Promise.all(runs)).map(pathList);
    if (lists.includes(null)) return null;
    const all = [...new Set(lists.flat())];
    return all.some((p) => p.endsWith("/")) ? null : all;
  } catch {
    return null;
  }
}

/**
 * `roots`: `[{ dir, indexDir }]` (the index directory each diagnosis found); `deps`: `runGit` (the
 * runner's git, if it has one), `large` (the roots whose last walk a bound ended, kept by the
 * caller across calls, so a large tree is not walked in vain each time), `watch` (the runner's
 * watchChanges, while auto sync is on) and `baselines` (kept by the caller: per watched root, what
 * git named once its watch was ready). Resolves with `[{ dir, files, more, cut, source }]`: the
 * changed files (absolute) under each root, whether more were found than listed or a bound
 * stopped the walk before the end (then there may be more), `cut` (`{ stopped, filesSeen }`, or
 * null) when a bound (its time, its files) ended it: then changes past what it read are not
 * counted; `source`: "walk", "git" when git named the candidates after a bound ended the walk, or
 * "watch" when what git named once the root's watch was ready and what the watch saw since were.
 */
async function changedSinceIndex(changedSource, roots, deps = {}) {
  if (typeof changedSource !== "function") return [];
  const { runGit, large = new Set(), watch, baselines = new Map() } = deps;
  const found = [];
  for (const { dir, indexDir } of roots) {
    const since = await indexWrittenAt(indexDir);
    if (since === null) continue;
    const request = (paths) => sourceChangesRequest(since, { indexDir, paths });
    const among = (paths) => changedSource(dir, request(paths)).catch(() => null);
    // A large root, while auto sync is on: watched (the watch starts at the first ask).
    const watched = watch && large.has(dir) ? await watch(dir, request()).catch(() => null) : null;
    /** The candidates git names, looked at alone (kept once the watch is ready); null where git cannot name them all. */
    const byGit = async () => {
      const paths = await gitCandidates(runGit, dir, since);
      if (paths && watched?.ready) baselines.set(dir, { epoch: watched.epoch, paths });
      return paths && among(paths);
    };
    /** What git named once this watch was ready, and the files it saw written since: all there is to look at. */
    const byWatch = async () => {
      const kept = watched?.ready ? baselines.get(dir) : undefined;
      if (!kept || kept.epoch !== watched.epoch) return null;
      const seen = await among([...kept.paths, ...watched.touched]);
      return seen && !seen.stopped ? seen : null;
    };
    /** The bounded walk; a walk a bound ends hands over to git, and the root asks git first from then on. */
    const byWalk = async () => {
      const walked = await changedSource(dir, request()).catch(() => null);
      if (!walked) return null;
      if (walked.stopped) large.add(dir);
      else large.delete(dir);
      const instead = walked.stopped ? await byGit() : null;
      return instead ? { walked: instead, source: "git" } : { walked, source: "walk" };
    };
    const tagged = (walked, source) => (walked ? { walked, source } : null);
    const counted =
      tagged(await byWatch(), "watch") ?? (large.has(dir) ? tagged(await byGit(), "git") : null) ?? (await byWalk());
    if (!counted) continue;
    const { walked, source } = counted;
    const files = walked.paths.map((p) => path.resolve(dir, ...p.split("/")));
    const more = walked.changed > walked.paths.length || (walked.changed > 0 && Boolean(walked.stopped));
    const cut = walked.stopped ? { stopped: walked.stopped, filesSeen: walked.filesSeen } : null;
    found.push({ dir, files, more, cut, source });
  }
  return found;
}

module.exports = { changedSinceIndex, gitCandidates };
