// The Node runner's bounded source search, the twin of crates/core/src/source_scan.rs: the same
// walk (sorted by name, symlinks not followed, `.gitignore` at every depth and
// `.git/info/exclude` read with the `ignore` package, the deepest that decides wins, the listed
// directory names skipped), the same bounds in the same order, the same result. A file with a
// NUL byte reports nothing; a file that cannot be read is skipped.
//
// Node differs: the walk and reads are asynchronous, so a scan yields to the event loop (the
// addon's runs on its own thread). The `ignore` package is an optional dependency, required when
// a scan first runs: where it is not installed, no `.gitignore` is read (only the listed
// directory names are skipped) and the outcome says `gitignoreUnread: true`.

const fsp = require("node:fs/promises");
const path = require("node:path");

let ignorePackage;
/** The `ignore` package, or null where it is not installed. */
function ignoreFactory() {
  if (ignorePackage === undefined) {
    try {
      ignorePackage = require("ignore");
    } catch {
      ignorePackage = null;
    }
  }
  return ignorePackage;
}

/** Whether directory `name` is one `glob` lists (`*` matches any run of characters). */
function globMatches(glob, name) {
  const source = glob
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "su").test(name);
}

const byBytes = (a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/** The gitignore matcher of one directory (its `.gitignore`; at the root `.git/info/exclude` too), or null. */
async function matcherOf(dir, isRoot) {
  const ignore = ignoreFactory();
  if (!ignore) return null;
  const files = [path.join(dir, ".gitignore")];
  if (isRoot) files.unshift(path.join(dir, ".git", "info", "exclude"));
  let matcher = null;
  for (const file of files) {
    const text = await fsp.readFile(file, "utf8").catch(() => null);
    if (text === null) continue;
    matcher ??= ignore({ allowRelativePaths: true });
    try {
      matcher.add(text);
    } catch {
      // a pattern the package cannot read: the rest of the file still counts
    }
  }
  return matcher;
}

/** Whether `abs` is ignored by the matchers of its directories (`chain`: root first). */
function ignored(chain, abs, isDir) {
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const { dir, matcher } = chain[i];
    if (!matcher) continue;
    const rel = path.relative(dir, abs).split(path.sep).join("/") + (isDir ? "/" : "");
    let verdict;
    try {
      verdict = matcher.test(rel);
    } catch {
      continue;
    }
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

function compile(rules) {
  return rules.map((rule) => {
    try {
      return {
        extensions: rule.extensions.map((e) => e.toLowerCase()),
        regex: new RegExp(rule.pattern, "u"),
      };
    } catch (err) {
      throw Object.assign(
        new Error(`CODEGRAPH_INVALID_REQUEST: invalid scan pattern ${JSON.stringify(rule.pattern)}: ${err.message}`),
        {
          code: "CODEGRAPH_INVALID_REQUEST",
        },
      );
    }
  });
}

/**
 * Searches `cwd`'s source as `scan` says (lib/contract/definitions.js builds it): `{ matches:
 * [{ path, line, fileBytes }], filesScanned, bytesScanned, filesTooLarge, stopped }`.
 */
async function scanSource(cwd, scan) {
  const started = Date.now();
  const rules = compile(scan.rules);
  const out = { matches: [], filesScanned: 0, bytesScanned: 0, filesTooLarge: 0 };
  if (!ignoreFactory()) out.gitignoreUnread = true;
  const stop = (why) => {
    out.stopped = why;
    return true;
  };

  /** Walks `dir`; true once a bound stopped the scan. */
  async function walk(dir, chain) {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort(byBytes);
    for (const entry of entries) {
      if (Date.now() - started >= scan.deadlineMs) return stop("deadline");
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (scan.skipDirs.some((g) => globMatches(g, entry.name)) || ignored(chain, abs, true)) continue;
        const inner = [...chain, { dir: abs, matcher: await matcherOf(abs, false) }];
        if (await walk(abs, inner)) return true;
        continue;
      }
      if (!entry.isFile() || ignored(chain, abs, false)) continue;
      const extension = path.extname(entry.name).slice(1).toLowerCase();
      const rule = extension === "" ? undefined : rules.find((r) => r.extensions.includes(extension));
      if (!rule) continue;
      const size = await fsp.stat(abs).then(
        (s) => s.size,
        () => null,
      );
      if (size === null) continue;
      if (size > scan.maxFileBytes) {
        out.filesTooLarge += 1;
        continue;
      }
      if (out.filesScanned >= scan.maxFiles) return stop("files");
      if (out.bytesScanned + size > scan.maxTotalBytes) return stop("bytes");
      const bytes = await fsp.readFile(abs).catch(() => null);
      if (bytes === null) continue;
      out.filesScanned += 1;
      out.bytesScanned += bytes.length;
      if (bytes.includes(0)) continue;
      const shown = path.relative(cwd, abs).split(path.sep).join("/");
      const lines = bytes.toString("utf8").split("\n");
      for (let i = 0; i < lines.length; i += 1) {
        if (!rule.regex.test(lines[i])) continue;
        if (out.matches.length >= scan.maxMatches) return stop("matches");
        out.matches.push({ path: shown, line: i + 1, fileBytes: bytes.length });
      }
    }
    return false;
  }

  await walk(cwd, [{ dir: cwd, matcher: await matcherOf(cwd, true) }]);
  return out;
}

module.exports = { scanSource };
