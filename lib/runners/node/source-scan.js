// The Node runner's bounded source search, the twin of crates/core/src/source_scan.rs: the same
// walk (source-walk.js), the same bounds in the same order, the same result. A file with a NUL
// byte reports nothing; a file that cannot be read is skipped.
//
// Node differs: the walk and reads are asynchronous, so a scan yields to the event loop (the
// addon's runs on its own thread). Where the optional `ignore` package is not installed, no
// `.gitignore` is read (only the listed directory names are skipped) and the outcome says
// `gitignoreUnread: true`.

const fsp = require("node:fs/promises");
const { gitignoreReadable, shownPath, sourceFiles } = require("./source-walk.js");

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
  if (!gitignoreReadable()) out.gitignoreUnread = true;
  for await (const { abs, extension, stopped } of sourceFiles(cwd, scan.skipDirs, started, scan.deadlineMs)) {
    if (stopped) {
      out.stopped = stopped;
      break;
    }
    const rule = rules.find((r) => r.extensions.includes(extension));
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
    if (out.filesScanned >= scan.maxFiles) {
      out.stopped = "files";
      break;
    }
    if (out.bytesScanned + size > scan.maxTotalBytes) {
      out.stopped = "bytes";
      break;
    }
    const bytes = await fsp.readFile(abs).catch(() => null);
    if (bytes === null) continue;
    out.filesScanned += 1;
    out.bytesScanned += bytes.length;
    if (bytes.includes(0)) continue;
    const shown = shownPath(cwd, abs);
    const lines = bytes.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i += 1) {
      if (!rule.regex.test(lines[i])) continue;
      if (out.matches.length >= scan.maxMatches) {
        out.stopped = "matches";
        return out;
      }
      out.matches.push({ path: shown, line: i + 1, fileBytes: bytes.length });
    }
  }
  return out;
}

module.exports = { scanSource };
