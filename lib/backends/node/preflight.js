const fs = require("node:fs");
const path = require("node:path");
const { badWorkspace, invalidRequest, noIndex } = require("./errors.js");
const { MAX_REQUEST_CHARS, QUIET_DEFAULTS, SQLITE_MAGIC } = require("./limits.js");

// ---------------------------------------------------------------------------------------------
// Preflight: checks made before anything runs. They only read.

function checkRequest(request) {
  if (!request.trim()) throw invalidRequest("it is empty or only whitespace");
  if (request.includes("\0")) throw invalidRequest("it contains a NUL byte, which no command-line argument can carry");
  // UTF-16 units, as the CLI's `query.length` counts them (an emoji counts 2).
  if (request.length > MAX_REQUEST_CHARS)
    throw invalidRequest(
      `it is ${request.length} characters long as JavaScript counts them (UTF-16 units); the limit is ${MAX_REQUEST_CHARS}`,
    );
}

function checkWorkspace(cwd) {
  if (cwd === "") throw badWorkspace(cwd, "no workspace directory was given");
  if (!path.isAbsolute(cwd)) throw badWorkspace(cwd, "it is not an absolute path");
  let stat;
  try {
    stat = fs.statSync(cwd);
  } catch (err) {
    throw badWorkspace(cwd, err.code === "ENOENT" ? "it does not exist" : `it cannot be read (${err.message})`);
  }
  if (!stat.isDirectory()) throw badWorkspace(cwd, "it is not a directory");
  try {
    fs.opendirSync(cwd).closeSync(); // a directory we cannot list would later look like "no index"
  } catch (err) {
    throw badWorkspace(cwd, `it cannot be read (${err.message})`);
  }
  return cwd;
}

/**
 * The index must be the workspace's own (the CLI would walk up to an ancestor's): a
 * `.codegraph/codegraph.db` (or CODEGRAPH_DIR, a plain name) that starts with the SQLite header.
 */
function checkIndex(workspace) {
  const name = process.env.CODEGRAPH_DIR;
  const dir = path.join(workspace, name && name !== "." && name !== ".." && !/[/\\]/.test(name) ? name : ".codegraph");
  const db = path.join(dir, "codegraph.db");
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch (err) {
    if (err.code === "ENOENT") throw noIndex(workspace, `${dir} does not exist`);
    throw badWorkspace(workspace, `${dir} cannot be read (${err.message})`);
  }
  if (!stat.isDirectory()) throw noIndex(workspace, `${dir} is not a directory`);
  const header = Buffer.alloc(16);
  let read;
  try {
    const fd = fs.openSync(db, "r");
    try {
      read = fs.readSync(fd, header, 0, 16, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    throw noIndex(workspace, err.code === "ENOENT" ? `${db} does not exist` : `${db} cannot be read (${err.message})`);
  }
  if (read < 16) throw noIndex(workspace, `${db} is empty or truncated`);
  if (!header.equals(SQLITE_MAGIC)) throw noIndex(workspace, `${db} is not a SQLite database`);
  return dir;
}

/** The user's environment plus the quiet defaults they did not set (DO_NOT_TRACK counts as theirs). */
function childEnv() {
  const env = { ...process.env };
  for (const [key, value] of Object.entries(QUIET_DEFAULTS)) {
    const userDecided =
      process.env[key] !== undefined || (key === "CODEGRAPH_TELEMETRY" && process.env.DO_NOT_TRACK !== undefined);
    if (!userDecided) env[key] = value;
  }
  return env;
}

module.exports = { checkRequest, checkWorkspace, checkIndex, childEnv };
