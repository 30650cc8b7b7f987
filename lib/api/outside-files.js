// Which indexed files lie outside the workspace (for `pi-codegraph doctor`). CodeGraph 1.6.1's
// indexer follows symbolic links inside the workspace, to files and to directories, wherever they
// point: a link such as `src/vendor -> /home/me/other-project` puts that project's code (its
// constants, signatures and comments) into the index, and from there into what search, node and
// explore show the model. The index names such a file by its path inside the workspace
// (`src/vendor/keys.ts`), so the only way to tell is to resolve each path's directories on disk.
// Read-only: `codegraph files` (a read command) and lstat/realpath, bounded in paths and time.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { isWithin } = require("../contract/files.js");
const { codegraphCommand } = require("../contract/commands.js");
const { LARGEST_CAP_BYTES, LARGEST_CAP_LINES } = require("../contract/limits.js");

/** At most this many indexed paths are resolved, within this long. */
const OUTSIDE_LIMITS = Object.freeze({ maxPaths: 200000, deadlineMs: 3000 });

/**
 * `codegraph files --format=flat --no-metadata`: one indexed path a line (two spaces in front),
 * under a `Files (N):` header. The listing is not for the model: it asks for the largest caps a
 * command may have (what the runner drains at most, 16 MiB, about 400,000 paths), so it comes
 * back whole in the answer and no full-output file is read back.
 */
const filesCommand = () =>
  codegraphCommand("files", {
    options: { format: "flat", "no-metadata": true },
    progress: "none",
    maxBytes: LARGEST_CAP_BYTES,
    maxLines: LARGEST_CAP_LINES,
  });

/** The indexed paths of a `filesCommand()` listing, workspace-relative as CodeGraph wrote them. */
function listedPaths(text) {
  const paths = [];
  for (const line of String(text).split("\n")) {
    if (!line.startsWith("  ")) continue; // the header, blank lines, a truncation marker
    const p = line.slice(2);
    if (p !== "" && !path.isAbsolute(p)) paths.push(p);
  }
  return paths;
}

/**
 * The links through which the indexed `paths` reach outside `workspace`: `{ links: [{ link,
 * target, files }], files, checked, total, cut }`. `link` is the workspace-relative path of the
 * first symbolic link on a file's path whose target resolves outside (the file itself, or one of
 * its directories); `files` counts the indexed files behind it. `checked` of `total` paths were
 * resolved (`cut`: "paths" or "time" when a bound stopped it, else null). Never throws.
 */
async function outsideFiles(workspace, paths, limits = OUTSIDE_LIMITS) {
  const started = performance.now();
  const wsReal = await fsp.realpath(workspace).catch(() => workspace);
  // Each directory (and file) prefix is looked at once: `null` inside, else its link's facts.
  const seen = new Map();
  const verdict = async (rel) => {
    if (seen.has(rel)) return seen.get(rel);
    let found = null;
    try {
      const abs = path.join(workspace, rel);
      if ((await fsp.lstat(abs)).isSymbolicLink()) {
        const target = await fsp.realpath(abs);
        if (!isWithin(target, wsReal)) found = { link: rel, target };
      }
    } catch {} // gone since the index, or unreadable: nothing to say about it
    seen.set(rel, found);
    return found;
  };
  const byLink = new Map();
  let checked = 0;
  let files = 0;
  let cut = null;
  for (const p of paths) {
    if (checked >= limits.maxPaths) {
      cut = "paths";
      break;
    }
    if (performance.now() - started > limits.deadlineMs) {
      cut = "time";
      break;
    }
    checked++;
    const parts = p.split("/").filter((s) => s !== "" && s !== ".");
    if (parts.includes("..")) continue; // not a path inside the workspace as written
    for (let i = 1; i <= parts.length; i++) {
      const found = await verdict(parts.slice(0, i).join("/"));
      if (!found) continue;
      const entry = byLink.get(found.link) ?? { ...found, files: 0 };
      entry.files++;
      byLink.set(found.link, entry);
      files++;
      break;
    }
  }
  const links = [...byLink.values()].sort((a, b) => b.files - a.files || (a.link < b.link ? -1 : 1));
  return { links, files, checked, total: paths.length, cut };
}

/**
 * outsideFiles() of the index of `dir`, listed with `run` (the package's run()), or null when the
 * listing failed (doctor's status row says what is wrong with the index). A listing longer than
 * even the largest caps is checked as far as it came (`cut`: "listing").
 */
async function indexedOutside(dir, run) {
  let answer;
  try {
    answer = await run(filesCommand(), dir);
  } catch {
    return null;
  }
  const found = await outsideFiles(dir, listedPaths(answer.text));
  return answer.details?.truncated && found.cut === null ? { ...found, cut: "listing" } : found;
}

module.exports = { OUTSIDE_LIMITS, filesCommand, indexedOutside, listedPaths, outsideFiles };
