const fs = require("node:fs");
const path = require("node:path");
const { notFound } = require("./errors.js");
const { IS_WINDOWS } = require("./limits.js");

// ---------------------------------------------------------------------------------------------
// Discovery: which `codegraph` runs, and how to start it without a shell.

/** An executable file (on Windows any file: its extension decides). */
function isExecutable(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (!IS_WINDOWS) fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first of `names` in the ABSOLUTE entries of PATH, in name order. A relative or empty entry
 * would resolve against the workspace, and a `codegraph` planted in a repository must never run.
 * On Windows a name without extension is tried with each PATHEXT extension (not bare: an
 * extensionless npm sh-shim is not a Windows program).
 */
function searchPath(names) {
  const dirs = (process.env.PATH ?? "")
    .split(path.delimiter)
    .map((d) => (IS_WINDOWS ? d.replace(/^"(.*)"$/, "$1") : d))
    .filter((d) => d && path.isAbsolute(d));
  const exts = (process.env.PATHEXT || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  for (const name of names) {
    const variants = IS_WINDOWS && !path.extname(name) ? exts.map((e) => name + e) : [name];
    for (const dir of dirs) {
      for (const v of variants) if (isExecutable(path.join(dir, v))) return path.join(dir, v);
    }
  }
  return null;
}

/** `{ executable, program, prefix }`: run `program ...prefix <args>`; report `executable`. */
function discover() {
  const override = process.env.PI_CODEGRAPH_BIN;
  if (override) {
    if (!path.isAbsolute(override)) throw notFound(`PI_CODEGRAPH_BIN=${override} is not an absolute path`);
    let isFile = false;
    try {
      isFile = fs.statSync(override).isFile();
    } catch {}
    if (!isFile) throw notFound(`PI_CODEGRAPH_BIN=${override} is not a file`);
    return launchFor(override);
  }
  const names = IS_WINDOWS ? ["codegraph", "codegraph.cmd"] : ["codegraph"];
  const found = searchPath(names);
  if (!found) throw notFound(`no \`${names.join("` or `")}\` on PATH`);
  return launchFor(found);
}

/**
 * A `.cmd` launcher would need cmd.exe, which re-parses arguments. For npm's layout we run Node on
 * CodeGraph's own npm-shim.js instead, which is what the `.cmd` does.
 */
function launchFor(executable) {
  if (/\.(cmd|bat)$/i.test(executable)) {
    const dir = path.dirname(executable);
    const pkg = path.join("@colbymchenry", "codegraph", "npm-shim.js");
    const shim = [path.join(dir, "node_modules", pkg), path.join(dir, "..", pkg)].find((p) => fs.existsSync(p));
    const node =
      [path.join(dir, "node.exe"), path.join(dir, "node")].find((p) => isExecutable(p)) ?? searchPath(["node"]);
    if (shim && node) return { executable, program: node, prefix: [shim] };
  }
  return { executable, program: executable, prefix: [] };
}

module.exports = { isExecutable, searchPath, discover, launchFor };
