const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { onHostExit } = require("./host-exit.js");
const { DRAIN_LIMIT_BYTES, IS_WINDOWS, KEEP_FULL_OUTPUTS } = require("./limits.js");

// Full output of a truncated answer: a private (0600) temp file in the OS temp directory, never
// in the workspace, at most DRAIN_LIMIT_BYTES. Deleted by releaseFullOutputs() (Pi's
// session_shutdown), when more than KEEP_FULL_OUTPUTS newer ones exist, and at process exit.

const fullOutputs = [];

class Spill {
  static create(dir) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const file = path.join(dir, `pi-codegraph-explore-${crypto.randomBytes(4).toString("hex")}.txt`);
      try {
        return new Spill(fs.openSync(file, "wx", 0o600), file); // wx: never an existing file
      } catch (err) {
        if (err.code !== "EEXIST") return null;
      }
    }
    return null;
  }
  constructor(fd, file) {
    Object.assign(this, { fd, file, written: 0, cut: false });
  }
  /** Appends within the bound; a write error abandons the file (the answer stays bounded anyway). */
  write(chunk) {
    const take = Math.min(chunk.length, DRAIN_LIMIT_BYTES - this.written);
    this.cut ||= take < chunk.length;
    try {
      for (let off = 0; off < take; ) off += fs.writeSync(this.fd, chunk, off, take - off);
    } catch {
      this.discard();
      return null;
    }
    this.written += take;
    return this;
  }
  finish(complete) {
    fs.closeSync(this.fd);
    fullOutputs.push(this.file);
    onHostExit(releaseFullOutputs);
    while (fullOutputs.length > KEEP_FULL_OUTPUTS) fs.rmSync(fullOutputs.shift(), { force: true });
    return { path: this.file, bytes: this.written, complete: complete && !this.cut };
  }
  discard() {
    try {
      fs.closeSync(this.fd);
    } catch {}
    fs.rmSync(this.file, { force: true });
  }
}

/** Deletes the full-output files this process still keeps; returns how many. */
function releaseFullOutputs() {
  const files = fullOutputs.splice(0);
  for (const file of files) fs.rmSync(file, { force: true });
  return files.length;
}

/** TMPDIR (absolute) or the platform default, but never a directory inside the workspace. */
function fullOutputDir(workspace) {
  const platformDefault = IS_WINDOWS ? os.tmpdir() : "/tmp";
  const tmpdir = process.env.TMPDIR;
  const chosen = tmpdir && path.isAbsolute(tmpdir) ? tmpdir : platformDefault;
  const real = (p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  };
  const rel = path.relative(real(workspace), real(chosen));
  const inside = !path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`);
  return inside ? platformDefault : chosen;
}

module.exports = { Spill, releaseFullOutputs, fullOutputDir };
