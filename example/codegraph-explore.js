// codegraph-explore.js: pi-codegraph as ONE readable file, for local trial and audit.
//
// The same `codegraph_explore` tool as the pi-codegraph package (its README: the tool table, the
// error codes, the data and security boundary), in plain Node instead of the Rust addon: no native
// binary, nothing to build. The package's contract suites (__test__/explore, output and tool
// .test.mjs) run against this file as well as against the addon. The package's edge-case
// hardening (FIFO-safe preflight, the never-hiding cleaner, fuller redaction, per-session
// full-output files, readiness re-checks) is not in this file yet.
//
// Install: Pi (it brings Node 22+), the CodeGraph CLI on PATH (npm install -g @colbymchenry/codegraph)
// and an index you made yourself (`codegraph init` in the project). Then
//   mkdir -p ~/.pi/agent/extensions && cp example/codegraph-explore.js ~/.pi/agent/extensions/
// and start Pi in the project; `/codegraph` shows whether it is ready. Use this file or the package,
// not both: whichever Pi loads first registers the tool, the other skips.
//
// Without Pi: require("./codegraph-explore.js").explore(request, workspace) works in plain Node.
//
// Where plain Node cannot do what the addon does, a comment says so ("Node differs"). The main
// ones: a host killed by SIGKILL leaves its CLI running; on Windows (experimental) descendants are
// killed with taskkill, not a job object, and a .cmd launcher outside npm's layout cannot start.

const { spawn, spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const TOOL_NAME = "codegraph_explore";
// Pi's default tools are read, bash, edit and write: grep and find may only exist through bash.
const FALLBACK_LINE = `${TOOL_NAME} is unavailable for this request; use read, and grep/find (as tools or through bash), instead.`;
const IS_WINDOWS = process.platform === "win32";

const MAX_REQUEST_CHARS = 10000;
const MAX_BYTES = 50 * 1024; // what the model may see of stdout: 51,200 bytes ...
const MAX_LINES = 2000; // ... or 2,000 lines, whichever comes first
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024; // stdout past the caps is counted (and spilled) up to this
const STDERR_TAIL_BYTES = 4 * 1024;
const STDOUT_EXCERPT_BYTES = 1024; // shown when a failing CLI left stderr empty
const DEFAULT_TIMEOUT_MS = 30000;
const VERSION_TIMEOUT_MS = 5000;
const TERM_GRACE_MS = 500; // SIGTERM, then SIGKILL this much later
const PIPE_GRACE_MS = 250; // how long a descendant may hold the pipes after the CLI exited
const PROGRESS_INTERVAL_MS = 250;
const KEEP_FULL_OUTPUTS = 16;
const PREVIEW_LINES = 8;
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** What CodeGraph 1.1 to 1.6.1 print on stderr when a directory has no usable index. */
const CLI_NO_INDEX_MARKER = "no .codegraph/ index exists";
/** The signals a crashing or killed CLI usually dies by: named in the message. */
const COMMON_SIGNALS = "SIGSEGV SIGKILL SIGABRT SIGBUS SIGILL SIGFPE SIGTERM SIGINT SIGHUP SIGPIPE".split(" ");
/** Set for the child unless the user set them: no telemetry, update check, download or colour. */
const QUIET_DEFAULTS = {
  CODEGRAPH_TELEMETRY: "0",
  CODEGRAPH_NO_UPDATE_CHECK: "1",
  CODEGRAPH_NO_DOWNLOAD: "1",
  NO_COLOR: "1",
};

// ---------------------------------------------------------------------------------------------
// Errors: a stable code, a one-line remediation, and a self-contained message (Pi hands only
// `error.message` to the model).

const REMEDIATION = {
  CODEGRAPH_INVALID_REQUEST:
    "Send one non-empty natural-language question of at most 10,000 characters, without NUL bytes.",
  CODEGRAPH_INVALID_OPTIONS:
    "Pass options as { timeoutMs?: milliseconds, onProgress?: function } and the signal as an AbortSignal, or leave them out.",
  CODEGRAPH_WORKSPACE:
    "Start Pi in an existing project directory; codegraph_explore only runs in Pi's active workspace.",
  CODEGRAPH_NOT_FOUND:
    "Install the CodeGraph CLI (npm install -g @colbymchenry/codegraph) and make sure `codegraph` is on PATH, or set PI_CODEGRAPH_BIN to its absolute path.",
  CODEGRAPH_SPAWN: "Check that the codegraph executable is a runnable program and that the workspace is readable.",
  CODEGRAPH_EXIT: "Read the stderr tail below; run the same `codegraph explore` in the workspace to reproduce it.",
  CODEGRAPH_TIMEOUT:
    "Ask a narrower question that names concrete symbols or files, or check the index with `codegraph status`.",
  CODEGRAPH_CANCELLED: "Nothing to fix: the request was cancelled before codegraph answered.",
};

/** A failure inside this file; `explore()` turns it into the public Error at the edge. */
class Problem extends Error {
  constructor(code, text, extra = {}, remediation = REMEDIATION[code]) {
    super(text);
    Object.assign(this, { code, text, extra, remediation });
  }
}
const invalidRequest = (reason) =>
  new Problem("CODEGRAPH_INVALID_REQUEST", `the Explore request is invalid: ${reason}`);
const invalidOptions = (reason) =>
  new Problem("CODEGRAPH_INVALID_OPTIONS", `the explore options are invalid: ${reason}`);
// The addon prints the path with Rust's `{:?}`; JSON quoting is the same for ordinary paths.
const badWorkspace = (p, reason) =>
  new Problem("CODEGRAPH_WORKSPACE", `the workspace ${JSON.stringify(p)} is not usable: ${reason}`);
const notFound = (reason) => new Problem("CODEGRAPH_NOT_FOUND", `the CodeGraph CLI was not found: ${reason}`);
const noIndex = (workspace, reason) =>
  new Problem(
    "CODEGRAPH_NO_INDEX",
    `this workspace has no CodeGraph index: ${reason}`,
    {},
    `Run \`codegraph init\` in ${workspace} yourself; pi-codegraph never creates, syncs or repairs the index.`,
  );
const spawnFailed = (reason) => new Problem("CODEGRAPH_SPAWN", `codegraph could not be started: ${reason}`);
const timedOut = (ms) =>
  new Problem("CODEGRAPH_TIMEOUT", `codegraph explore did not finish within ${ms} ms and was stopped`, {
    timeoutMs: ms,
  });
const cancelled = () => new Problem("CODEGRAPH_CANCELLED", "the explore was cancelled and codegraph was stopped");

/** A copy without the undefined fields (the addon leaves absent values out). */
const defined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** The public Error: `CODE: message.\nRemediation: …`, plus `code`, `remediation`, `details`. */
function publicError(p, failure) {
  if (!(p instanceof Problem)) p = spawnFailed(String(p?.message ?? p)); // a bug here, still a contract error
  let message = `${p.code}: ${p.text}.\nRemediation: ${p.remediation}`;
  const tail = p.extra.stderrTail ?? "";
  // A failed CLI always shows its stderr tail; a stuck one only when it said something.
  if (tail.trim()) message += `\nstderr (last 4 KB):\n${tail.trimEnd()}`;
  else if (p.code === "CODEGRAPH_EXIT") message += "\nstderr: (empty)";
  const details = defined({ ...failure, ...p.extra });
  return Object.assign(new Error(message), { code: p.code, remediation: p.remediation, details });
}

// ---------------------------------------------------------------------------------------------
// Clean text: CLI bytes decoded, terminal escapes removed, secrets masked.

/** Where ESC leads: CSI, OSC, and the strings (DCS, SOS, PM, APC) that only ST or BEL/CAN/SUB end. */
const AFTER_ESC = { "[": "csi", "]": "osc", P: "string", X: "string", "^": "string", _: "string" };

/**
 * Decodes bytes and drops escape sequences (CSI, OSC, DCS/SOS/PM/APC strings, ESC sequences) as
 * a VT parser would, keeping printable text, newlines and tabs and dropping other control
 * characters (NUL, CR, BEL, C1 …). Invalid UTF-8 becomes U+FFFD; a character cut at the very end
 * is held back, not replaced. Node differs: the addon runs the vte crate on raw bytes, so there a
 * lone C1 byte (0x80-0x9F, invalid UTF-8 on its own) is dropped, and 0x9C ends a DCS string;
 * here that byte decodes to U+FFFD first. CodeGraph prints valid UTF-8, so this never shows.
 */
function cleanText(bytes) {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes, { stream: true });
  let out = "";
  let state = "ground"; // ground, esc, escInter, csi, osc or string
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (state === "ground") {
      if (c === 0x1b) state = "esc";
      else if (c === 0x0a || c === 0x09 || !(c < 0x20 || (c >= 0x80 && c <= 0x9f))) out += ch;
    } else if (c === 0x18 || c === 0x1a) {
      state = "ground"; // CAN and SUB abort any sequence
    } else if (c === 0x1b) {
      state = "esc"; // ESC starts a new sequence, and ends an OSC or a string (ST is ESC \)
    } else if (state === "osc" || state === "string") {
      if (state === "osc" && c === 0x07) state = "ground"; // BEL ends an OSC; the rest is swallowed
    } else if (c < 0x20) {
      if (c === 0x0a || c === 0x09) out += ch; // inside ESC and CSI sequences, controls still act
    } else if (state === "esc") {
      if (AFTER_ESC[ch]) state = AFTER_ESC[ch];
      else if (c <= 0x2f) state = "escInter";
      else if (c <= 0x7e) state = "ground";
    } else if (c >= (state === "csi" ? 0x40 : 0x30) && c <= 0x7e) {
      state = "ground"; // the final byte of a CSI or ESC-intermediate sequence
    }
  }
  return out;
}

/** Masks `*TOKEN=`, `*SECRET=`, `*PASSWORD=`, `*API_KEY=` values (also with `:`) and Bearer tokens. */
function redact(text) {
  return text
    .replace(
      /([A-Z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|API_KEY)["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)/gi,
      "$1[REDACTED]",
    )
    .replace(/(\bBearer\s+)[A-Za-z0-9._~+/=-]+/gi, "$1[REDACTED]");
}

// ---------------------------------------------------------------------------------------------
// Output bounds.

const countNewlines = (buf) => {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n += 1;
  return n;
};
const countLines = (text) => (text.match(/\n/g)?.length ?? 0) + (text && !text.endsWith("\n") ? 1 : 0);
const isContinuation = (byte) => (byte & 0xc0) === 0x80;

/** Both caps on decoded text, cut at a line end where one fits, else at a character boundary. */
function cut(text, maxBytes = MAX_BYTES, maxLines = MAX_LINES) {
  const buf = Buffer.from(text);
  let end = buf.length;
  let by;
  let nl = -1; // the maxLines-th newline, if there is one
  for (let i = 0; i < maxLines; i++) {
    nl = buf.indexOf(10, nl + 1);
    if (nl === -1) break;
  }
  if (nl !== -1 && nl + 1 < buf.length) [end, by] = [nl + 1, "lines"];
  if (end > maxBytes) {
    let limit = maxBytes;
    while (isContinuation(buf[limit])) limit -= 1;
    const lastNl = buf.subarray(0, limit).lastIndexOf(10);
    [end, by] = [lastNl === -1 ? limit : lastNl + 1, "bytes"];
  }
  return [buf.subarray(0, end).toString(), by];
}

/** Lines the truncation marker adds (a blank line and itself); it counts against the caps. */
const MARKER_LINES = 2;

/**
 * Keeps at most MAX_BYTES (+3 to finish a character) and stops storing at line MAX_LINES + 1;
 * everything after is only counted. Once a cap is passed the whole stream, from its first byte,
 * also goes to a full-output file (when a directory was given).
 */
class StdoutCollector {
  constructor(spillDir) {
    Object.assign(this, { spillDir, spill: null, kept: Buffer.alloc(0), keptNewlines: 0, storing: true });
    Object.assign(this, { seenBytes: 0, seenNewlines: 0, lastByte: undefined });
  }

  push(chunk) {
    if (!chunk.length) return;
    this.seenBytes += chunk.length;
    this.seenNewlines += countNewlines(chunk);
    this.lastByte = chunk[chunk.length - 1];
    if (!this.storing) {
      this.spill = this.spill?.write(chunk) ?? null;
      return;
    }
    let take = Math.min(chunk.length, Math.max(0, MAX_BYTES + 3 - this.kept.length));
    for (let i = 0; i < take; i++) {
      if (chunk[i] === 10 && ++this.keptNewlines > MAX_LINES) {
        take = i + 1;
        break;
      }
    }
    this.kept = Buffer.concat([this.kept, chunk.subarray(0, take)]);
    if (take < chunk.length || this.kept.length >= MAX_BYTES + 3 || this.keptNewlines > MAX_LINES) {
      this.storing = false;
      const spill = this.spillDir ? Spill.create(this.spillDir) : null;
      this.spill = spill?.write(this.kept)?.write(chunk.subarray(take)) ?? null;
    }
  }

  /** What the model would see so far (for progress reports). */
  preview() {
    return { text: cut(cleanText(this.kept))[0], seenBytes: this.seenBytes, seenLines: this.seenNewlines };
  }

  finish(totalsExact) {
    const decoded = cleanText(this.kept);
    const totalBytes = this.seenBytes;
    const totalLines = this.seenNewlines + (this.lastByte !== undefined && this.lastByte !== 10 ? 1 : 0);
    const whole = totalBytes === this.kept.length && totalsExact;
    if (whole && Buffer.byteLength(decoded) <= MAX_BYTES && countLines(decoded) <= MAX_LINES) {
      const keptBytes = Buffer.byteLength(decoded);
      const keptLines = countLines(decoded);
      return { text: decoded, truncated: false, totalBytes, totalLines, keptBytes, keptLines, totalsExact };
    }
    // Every truncated answer names its file, even one that never passed the storing cap.
    if (this.storing && !this.spill && this.spillDir)
      this.spill = Spill.create(this.spillDir)?.write(this.kept) ?? null;
    const b = { truncated: true, truncatedBy: "bytes", totalBytes, totalLines, totalsExact };
    b.fullOutput = this.spill?.finish(totalsExact);
    // The marker counts against the caps: reserve its worst case (the longer gap, the largest
    // kept counts), so text + marker never exceed MAX_BYTES or MAX_LINES.
    const reserve = Buffer.byteLength(
      truncationMarker({ ...b, text: "x", keptBytes: MAX_BYTES, keptLines: MAX_LINES }),
    );
    const [text, cutBy] = cut(decoded, MAX_BYTES - reserve, MAX_LINES - MARKER_LINES);
    return {
      ...b,
      text,
      truncatedBy: cutBy ?? "bytes",
      keptBytes: Buffer.byteLength(text),
      keptLines: countLines(text),
    };
  }

  /** A run that failed keeps no full-output file. */
  discard() {
    this.spill?.discard();
    this.spill = null;
  }
}

/** Keeps the final STDERR_TAIL_BYTES of stderr, as clean, redacted text. */
class StderrTail {
  constructor() {
    this.tail = Buffer.alloc(0);
  }
  push(chunk) {
    this.tail = Buffer.from(Buffer.concat([this.tail, chunk]).subarray(-STDERR_TAIL_BYTES));
  }
  finish() {
    let start = 0;
    while (start < 3 && isContinuation(this.tail[start])) start += 1; // a character cut at the ring's start
    const text = Buffer.from(redact(cleanText(this.tail.subarray(start))));
    let from = Math.max(0, text.length - STDERR_TAIL_BYTES); // replacement characters can grow it
    while (isContinuation(text[from])) from += 1;
    return text.subarray(from).toString();
  }
}

/** The visible marker appended to truncated output. */
function truncationMarker(b) {
  const atLeast = b.totalsExact ? "" : "at least ";
  const f = b.fullOutput;
  const more = f
    ? `More output existed: the full output${f.complete ? "" : ", itself cut at 16 MiB,"} (${f.bytes} bytes) is in ${f.path}; use the read tool with an offset to see the rest`
    : "More output existed and was omitted; ask a narrower question to see it";
  return `${b.text.endsWith("\n") ? "\n" : "\n\n"}[Output truncated by ${b.truncatedBy}: showing ${b.keptLines} of ${atLeast}${b.totalLines} lines (${b.keptBytes} of ${atLeast}${b.totalBytes} bytes). ${more}]`;
}

// ---------------------------------------------------------------------------------------------
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
    cleanUpAtExit();
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

// ---------------------------------------------------------------------------------------------
// The runner: one CLI process within the caps, the deadline and the caller's cancellation, and
// nothing left running behind it. On Unix the child leads its own process group, so "kill"
// means the whole tree (CodeGraph's npm shim starts the real CLI as a child).

/**
 * When this process exits (process.exit() included), nothing of ours may outlive it: running CLI
 * groups are SIGKILLed and full-output files deleted. Node differs: a host killed by SIGKILL runs
 * no code at all, so its CLI group then lives on until it ends by itself (the addon arms a watchdog).
 */
const running = new Set();
let exitHook = false;
function cleanUpAtExit() {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const child of running) signalTree(child, "SIGKILL");
    releaseFullOutputs();
  });
}

/** Signals the child's whole tree. */
function signalTree(child, signal) {
  if (!child.pid) return;
  if (IS_WINDOWS) {
    // Node differs: the addon puts the child in a job object. taskkill /T walks the tree from the
    // pid, so it must run before the direct kill, and cannot reach descendants of a CLI that has
    // already exited (nor may it run then: the pid could be reused). Windows has no SIGTERM.
    if (child.exitCode !== null || child.signalCode !== null) return;
    const taskkill = path.join(process.env.SystemRoot ?? "C:\\Windows", "System32", "taskkill.exe");
    spawnSync(taskkill, ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true, timeout: 5000 });
    child.kill();
    return;
  }
  try {
    process.kill(-child.pid, signal); // negative pid: the process group
  } catch {} // ESRCH: the group is already gone
}

/** Resolves once `stream` has closed, or after `ms`. */
const closed = (stream, ms) =>
  new Promise((resolve) => {
    if (stream.closed) return resolve();
    const timer = setTimeout(resolve, ms);
    stream.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });

const exited = (child, ms) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(resolve, ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** SIGTERM the group, give it TERM_GRACE_MS to exit, then SIGKILL whatever is left. */
async function terminate(child) {
  if (!IS_WINDOWS) {
    signalTree(child, "SIGTERM");
    await exited(child, TERM_GRACE_MS);
  }
  signalTree(child, "SIGKILL");
  await exited(child, TERM_GRACE_MS);
}

function spawnProblem(executable, err) {
  if (err.code === "ENOENT")
    return notFound(`${executable} could not be executed (it, or its interpreter, does not exist)`);
  if (err.code === "EACCES") {
    // From exec (not executable) or from entering the workspace.
    return spawnFailed(
      `permission denied running ${executable} in the workspace (is it executable, and the workspace enterable?)`,
    );
  }
  // Node differs: Node refuses every .cmd/.bat without a shell (EINVAL); the addon escapes its
  // arguments for cmd.exe. npm's layout never gets here (launchFor runs Node on the shim).
  if (err.code === "EINVAL" && /\.(cmd|bat)$/i.test(executable))
    return spawnFailed(`${executable} is a batch launcher, which Node will not start without a shell`);
  return spawnFailed(`${executable}: ${err.message}`);
}

/**
 * Node differs: for a file the kernel refuses to execute (ENOEXEC: no `#!` line, not a binary),
 * libuv falls back to running it with /bin/sh. The addon never does, so neither may we: refuse
 * anything that is not a `#!` script or a native (ELF / Mach-O) program before spawning it.
 */
function refusesShellFallback(program) {
  if (IS_WINDOWS) return false;
  const head = Buffer.alloc(4);
  try {
    fs.accessSync(program, fs.constants.X_OK);
    const fd = fs.openSync(program, "r");
    try {
      fs.readSync(fd, head, 0, 4, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false; // not executable or unreadable: let the spawn itself report why
  }
  const magic = head.readUInt32BE(0);
  const native = [0x7f454c46, 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic);
  return !native && !head.subarray(0, 2).equals(Buffer.from("#!"));
}

/**
 * Runs `launch` with `args` (an argument array, no shell). Resolves with the bounded stdout, the
 * stderr tail, the exit status and the duration; rejects with a Problem on spawn failure,
 * timeout or cancellation (after the whole tree is stopped).
 */
function run({ launch, args, cwd, env, timeoutMs, cancel, spillDir, onProgress }) {
  return new Promise((resolve, reject) => {
    if (cancel.requested) return reject(cancelled()); // aborted during preflight: start nothing
    const started = performance.now();
    const elapsed = () => Math.floor(performance.now() - started);
    if (refusesShellFallback(launch.program)) {
      return reject(spawnFailed(`${launch.executable}: Exec format error (neither a #! script nor a native program)`));
    }
    const out = new StdoutCollector(spillDir);
    const err = new StderrTail();
    let child;
    try {
      child = spawn(launch.program, [...launch.prefix, ...args], {
        cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        shell: false,
        detached: !IS_WINDOWS, // Unix: its own process group, so the whole tree can be signalled
        windowsHide: true,
      });
    } catch (e) {
      return reject(spawnProblem(launch.executable, e));
    }
    running.add(child);
    cleanUpAtExit();
    let outOpen = true;
    let errOpen = true;
    let status = null; // { code, signal } once the CLI exited
    let totalsExact = true; // false once a flood was cut off
    let settled = false;
    let lastProgress = started;
    const timers = [];
    const later = (ms, fn) => timers.push(setTimeout(fn, ms));
    const closePipes = () => {
      [outOpen, errOpen] = [false, false];
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const settle = () => {
      settled = true;
      cancel.onCancel = null;
      for (const t of timers) clearTimeout(t);
    };
    const stop = async (problem) => {
      if (settled) return;
      settle();
      out.discard();
      await terminate(child);
      if (problem.code === "CODEGRAPH_TIMEOUT") {
        // What a stuck CLI said before it was stopped is often the reason (a lock, a prompt).
        await closed(child.stderr, PIPE_GRACE_MS);
        problem.extra.stderrTail = err.finish();
      }
      closePipes();
      running.delete(child);
      reject(problem);
    };
    const maybeFinish = () => {
      if (settled || outOpen || errOpen || !status) return;
      settle();
      signalTree(child, "SIGKILL"); // nothing of the run may outlive it, even a quiet descendant
      running.delete(child);
      resolve({ stdout: out.finish(totalsExact), stderrTail: err.finish(), status, durationMs: elapsed() });
    };

    cancel.onCancel = () => stop(cancelled());
    later(timeoutMs, () => stop(timedOut(timeoutMs)));
    child.stdout.on("error", () => {}); // a broken pipe just ends the stream ('close' follows)
    child.stderr.on("error", () => {});
    child.on("error", (e) => {
      if (child.pid !== undefined || settled) return; // only a failed spawn matters here
      settle();
      running.delete(child);
      reject(spawnProblem(launch.executable, e));
    });
    child.stdout.on("data", (chunk) => {
      if (!outOpen || settled) return;
      out.push(chunk);
      if (onProgress && performance.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = performance.now();
        try {
          onProgress({ ...out.preview(), elapsedMs: elapsed() });
        } catch {} // a listener's bug must not break the run
      }
      if (out.seenBytes > DRAIN_LIMIT_BYTES) {
        // A flood: stop reading and stop the writer; the totals are now lower bounds.
        totalsExact = false;
        signalTree(child, "SIGKILL"); // before closing our end, so it dies of the kill, not of EPIPE
        closePipes();
        maybeFinish();
      }
    });
    child.stderr.on("data", (chunk) => errOpen && err.push(chunk));
    child.stdout.once("close", () => {
      outOpen = false;
      maybeFinish();
    });
    child.stderr.once("close", () => {
      errOpen = false;
      maybeFinish();
    });
    child.once("exit", (code, signal) => {
      status = { code, signal };
      if (settled) return;
      // A descendant still holding stdout/stderr open: stop it, keep what it already wrote (still
      // in the pipe, read within another grace period), and finish.
      later(PIPE_GRACE_MS, () => {
        signalTree(child, "SIGKILL");
        later(PIPE_GRACE_MS, () => {
          closePipes();
          maybeFinish();
        });
      });
      maybeFinish();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// `codegraph --version`: diagnostics only, never used to refuse. Cached per executable; calls
// made while the first probe runs share it. Node differs: when an explore fails first, the
// addon kills its unfinished probe; here the probe finishes (within its own 5 s timeout).

const versions = new Map();
function cliVersion(launch, cwd, env) {
  if (!versions.has(launch.executable)) {
    const probe = run({ launch, args: ["--version"], cwd, env, timeoutMs: VERSION_TIMEOUT_MS, cancel: {} }).then(
      (out) => {
        const first = out.stdout.text.split("\n")[0].trim();
        return out.status.code === 0 && first ? [...first].slice(0, 64).join("") : null;
      },
      () => null,
    );
    versions.set(launch.executable, probe);
  }
  return versions.get(launch.executable);
}

// ---------------------------------------------------------------------------------------------
// explore() and diagnose(): the same API as the package's.

/**
 * Runs `codegraph explore -- <request>` in `cwd`, which must hold its own CodeGraph index.
 * Resolves with `{ text, details }`; rejects with an Error carrying `code`, `remediation` and
 * bounded `details`. Never throws synchronously. `options`: `timeoutMs` (default 30000) and
 * `onProgress({ text, seenBytes, seenLines, elapsedMs })`, at most every 250 ms.
 */
async function explore(request, cwd, signal, options) {
  // Argument checks in the addon's order: request type, workspace type, an already-fired signal.
  let early = typeof request === "string" ? null : invalidRequest("it is not a string");
  if (typeof cwd !== "string") early ??= badWorkspace("", "the workspace path is not a string");
  const cancel = { requested: false, onCancel: null };
  const onAbort = () => {
    cancel.requested = true;
    cancel.onCancel?.();
  };
  const { timeoutMs, onProgress, problem } = parseOptions(options);
  if (problem) early ??= problem;
  const sig = signal !== null && typeof signal === "object" ? signal : null;
  if (signal !== undefined && signal !== null && (!sig || typeof sig.addEventListener !== "function")) {
    early ??= invalidOptions("the signal is not an AbortSignal");
  }
  if (sig?.aborted) early ??= cancelled();
  const listening = !early && typeof sig?.addEventListener === "function";
  if (listening) sig.addEventListener("abort", onAbort); // a listener: the caller's onabort stays theirs
  const failure = {}; // diagnostics that travel with an error: executable, cliVersion, durationMs
  try {
    if (early) throw early;
    return await runExplore(request, cwd, timeoutMs, cancel, onProgress, failure);
  } catch (err) {
    throw publicError(err, failure);
  } finally {
    if (listening) sig.removeEventListener("abort", onAbort);
  }
}

/** Options as a caller may really pass them; a wrong type is CODEGRAPH_INVALID_OPTIONS. */
function parseOptions(options) {
  const parsed = { timeoutMs: DEFAULT_TIMEOUT_MS, onProgress: undefined, problem: null };
  if (options === undefined || options === null) return parsed;
  if (typeof options !== "object") return { ...parsed, problem: invalidOptions("options is not an object") };
  const { timeoutMs, onProgress } = options;
  if (timeoutMs !== undefined && timeoutMs !== null) {
    // Node's timers fire at once past 2^31-1 ms; the addon takes the same bound.
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1) {
      return {
        ...parsed,
        problem: invalidOptions("options.timeoutMs must be a number of milliseconds from 1 to 2147483647"),
      };
    }
    parsed.timeoutMs = Math.trunc(timeoutMs);
  }
  if (onProgress !== undefined && onProgress !== null) {
    if (typeof onProgress !== "function")
      return { ...parsed, problem: invalidOptions("options.onProgress must be a function") };
    parsed.onProgress = onProgress;
  }
  return parsed;
}

async function runExplore(request, cwd, timeoutMs, cancel, onProgress, failure) {
  checkRequest(request);
  const workspace = checkWorkspace(cwd);
  checkIndex(workspace);
  const launch = discover();
  failure.executable = launch.executable;
  const env = childEnv();
  const version = cliVersion(launch, workspace, env);
  version.then((v) => {
    failure.cliVersion ??= v ?? undefined; // a stopped run reports the version only if already known
  });
  // `--` ends option parsing: a request such as "-p /etc" stays the query.
  const out = await run({
    launch,
    args: ["explore", "--", request],
    cwd: workspace,
    env,
    timeoutMs,
    cancel,
    spillDir: fullOutputDir(workspace),
    onProgress,
  });
  const cliVersionText = (await version) ?? undefined;
  // A flood we stopped ourselves (at the drain limit) is not the CLI's verdict: the kept text is
  // the answer, with totals as lower bounds and exitCode -1 ("stopped by pi-codegraph").
  const stoppedByUs = !out.stdout.totalsExact;
  if (out.status.code !== 0 && !stoppedByUs) {
    Object.assign(failure, { cliVersion: cliVersionText, durationMs: out.durationMs });
    throw classifyExit(out, workspace);
  }
  const b = out.stdout;
  let text = b.text.trim() ? b.text : "(codegraph explore printed nothing)";
  if (b.truncated) text += truncationMarker(b);
  return {
    text,
    details: defined({
      request,
      cwd: workspace,
      executable: launch.executable,
      cliVersion: cliVersionText,
      exitCode: stoppedByUs ? -1 : 0,
      durationMs: out.durationMs,
      truncated: b.truncated,
      truncatedBy: b.truncatedBy,
      totalBytes: b.totalBytes,
      totalLines: b.totalLines,
      totalsExact: b.totalsExact,
      keptBytes: b.keptBytes,
      keptLines: b.keptLines,
      fullOutputPath: b.fullOutput?.path,
      fullOutputBytes: b.fullOutput?.bytes,
    }),
  };
}

/** What a non-zero exit means: an index the CLI cannot use, or a failure with its stderr tail. */
function classifyExit(out, workspace) {
  if (out.stderrTail.includes(CLI_NO_INDEX_MARKER)) return noIndex(workspace, "codegraph found no usable index here");
  const { code, signal } = out.status;
  const signum = signal ? (os.constants.signals[signal] ?? null) : null;
  let how = "ended abnormally";
  if (code !== null) how = `exited with code ${code}`;
  else if (COMMON_SIGNALS.includes(signal)) how = `was killed by ${signal} (signal ${signum})`;
  else if (signum !== null) how = `was killed by signal ${signum}`;
  let stderrTail = out.stderrTail;
  if (!stderrTail.trim() && out.stdout.text.trim()) {
    // The CLI prints its validation errors on stdout.
    const buf = Buffer.from(out.stdout.text);
    let end = Math.min(buf.length, STDOUT_EXCERPT_BYTES);
    while (isContinuation(buf[end])) end -= 1;
    stderrTail = `(stderr empty; stdout began:)\n${redact(buf.subarray(0, end).toString())}`;
  }
  return new Problem("CODEGRAPH_EXIT", `codegraph explore ${how}`, { exitCode: code, signal: signum, stderrTail });
}

/**
 * Read-only readiness of a workspace, without running an explore: which `codegraph` would run
 * (and its version), the index directory, and the first problem (not installed before not indexed).
 */
async function diagnose(cwd) {
  const d = { cwd, ready: false };
  let problem;
  let workspace;
  try {
    if (typeof cwd !== "string") throw badWorkspace("", "the workspace path is not a string");
    workspace = checkWorkspace(cwd);
  } catch (p) {
    problem = p;
  }
  if (workspace) {
    let indexProblem;
    try {
      d.indexPath = checkIndex(workspace);
    } catch (p) {
      indexProblem = p;
    }
    try {
      const launch = discover();
      d.cliVersion = (await cliVersion(launch, workspace, childEnv())) ?? undefined;
      d.executable = launch.executable;
    } catch (p) {
      problem = p;
    }
    problem ??= indexProblem;
  }
  d.ready = !problem;
  if (problem) Object.assign(d, { problemCode: problem.code, problem: problem.text, remediation: problem.remediation });
  return defined(d);
}

// ---------------------------------------------------------------------------------------------
// The Pi extension: the same registration, guidance, rendering and /codegraph command as the
// package's index.js.

// Pi's own TypeBox and TUI, for the schema and the rendering. Pi's loader (jiti) first imports a
// .js extension natively and, only if that throws, evaluates it itself with Pi's copies (aliases
// under Node, virtual modules in Pi's Bun binary). From ~/.pi/agent/extensions a native require
// finds neither package, so they are required here, at load time, and a failure is rethrown when
// the file is being imported (no `module.parent`), as Pi's loader does. Required from plain Node
// (a script, a test), a failure only postpones them to the tool's creation (loadPeers), so
// explore() works without them.
let peers = null;
try {
  peers = { Type: require("typebox").Type, Text: require("@mariozechner/pi-tui").Text };
} catch (err) {
  if (!module.parent) throw err;
}

/** Both are ES modules: require() of them needs Node 22.12+, import() works on every Node. */
async function loadPeers() {
  if (!peers) {
    const [{ Type }, { Text }] = await Promise.all([import("typebox"), import("@mariozechner/pi-tui")]);
    peers = { Type, Text };
  }
  return peers;
}

const description =
  "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
  "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
  "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
  "Output is truncated to 2000 lines or 50KB (whichever is hit first); a truncated result names a file with the full output.";

const readySnippet =
  "Ask the workspace's CodeGraph index structural questions: where symbols are defined, what calls what, what implements an interface, and call paths between symbols";

const readyGuidelines = [
  `Use ${TOOL_NAME} for architecture, relationship and call-path questions (what calls X, what implements Y, how A reaches B); name concrete symbols, files or code terms, since CodeGraph matches names lexically, not by meaning.`,
  `Do not use ${TOOL_NAME} to read a file you already know or to search for exact text; use read, or grep (as a tool or through bash), for those.`,
];

/** The prompt text, decided once at session_start: only advertised as ready when it can serve. */
function guidance(diagnosis) {
  if (diagnosis.ready) return { promptSnippet: readySnippet, promptGuidelines: readyGuidelines };
  return {
    promptSnippet: `Unavailable in this workspace (${diagnosis.problemCode}): ${diagnosis.remediation} Use read, and grep/find through bash, instead`,
    promptGuidelines: [
      `Do not call ${TOOL_NAME} in this session: ${diagnosis.problemCode}. If structure matters, tell the user once: ${diagnosis.remediation}`,
    ],
  };
}

/** How the call looks as a command line (display only). */
const cliForm = (request) => `codegraph explore -- '${String(request).replace(/'/g, `'\\''`)}'`;
const formatBytes = (n) => (n < 1024 ? `${n}B` : `${(n / 1024).toFixed(1)}KB`);

function createTool(state, { Type, Text }) {
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description,
    ...guidance(state.diagnosis),
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        maxLength: MAX_REQUEST_CHARS,
      }),
    }),

    async execute(_toolCallId, params, signal, onUpdate, ctx) {
      const onProgress = onUpdate
        ? (p) =>
            onUpdate({
              content: [{ type: "text", text: p.text }],
              details: { partial: true, seenBytes: p.seenBytes, seenLines: p.seenLines, elapsedMs: p.elapsedMs },
            })
        : undefined;
      try {
        // The workspace is Pi's, never the model's: the tool has no path parameter.
        const result = await explore(params.request, ctx.cwd, signal, { onProgress });
        state.lastError = undefined;
        return { content: [{ type: "text", text: result.text }], details: result.details };
      } catch (err) {
        state.lastError = { at: new Date().toISOString(), message: err.message };
        const toolError = new Error(`${err.message}\n${FALLBACK_LINE}`, { cause: err });
        Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
        throw toolError;
      }
    },

    renderCall(args, theme, context) {
      const text = context?.lastComponent ?? new Text("", 0, 0);
      const request = String(args?.request ?? "").replace(/\s+/g, " ");
      text.setText(
        `${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${theme.fg("accent", request)}\n${theme.fg("dim", `$ ${cliForm(request)}`)}`,
      );
      return text;
    },

    renderResult(result, options, theme, context) {
      const body = result.content?.find((c) => c.type === "text")?.text ?? "";
      if (options.isPartial) {
        const p = result.details ?? {};
        const soFar = p.partial
          ? ` ${formatBytes(p.seenBytes)}, ${p.seenLines} lines, ${(p.elapsedMs / 1000).toFixed(1)}s`
          : "";
        const tail = body
          ? `\n${theme.fg("toolOutput", body.replace(/\n$/, "").split("\n").slice(-3).join("\n"))}`
          : "";
        return new Text(`${theme.fg("warning", `Exploring the CodeGraph index…${soFar}`)}${tail}`, 0, 0);
      }
      if (context?.isError) {
        // Code and remediation lead the message; the stderr tail follows only when expanded.
        const shown = options.expanded
          ? body
          : body
              .split("\n")
              .filter((l) => !l.startsWith("stderr"))
              .slice(0, 3)
              .join("\n");
        return new Text(theme.fg("error", shown), 0, 0);
      }
      const d = result.details ?? {};
      const lines = body.replace(/\n$/, "").split("\n");
      const facts = [
        formatBytes(d.keptBytes ?? Buffer.byteLength(body)),
        `${d.keptLines ?? lines.length} lines`,
        d.durationMs !== undefined ? `${(d.durationMs / 1000).toFixed(2)}s` : null,
        d.cliVersion ? `codegraph ${d.cliVersion}` : null,
      ].filter(Boolean);
      let footer = theme.fg("dim", facts.join(" · "));
      if (d.truncated) footer += ` ${theme.fg("warning", "[truncated]")}`;
      if (d.fullOutputPath) footer += `\n${theme.fg("dim", `full output: ${d.fullOutputPath}`)}`;
      if (options.expanded) return new Text(`${theme.fg("toolOutput", body)}\n${footer}`, 0, 0);
      const more = lines.length - PREVIEW_LINES;
      const hint = more > 0 ? `\n${theme.fg("muted", `… ${more} more lines`)}` : "";
      return new Text(`${theme.fg("toolOutput", lines.slice(0, PREVIEW_LINES).join("\n"))}${hint}\n${footer}`, 0, 0);
    },
  };
}

/** The `/codegraph` report: the diagnosis the guidance came from, plus the last error. */
function statusReport(diagnosis, state) {
  const lines = [
    `pi-codegraph: ${diagnosis.ready ? "ready" : `not ready (${diagnosis.problemCode})`}`,
    `workspace: ${diagnosis.cwd}`,
    `codegraph: ${diagnosis.executable ?? "not found"}${diagnosis.cliVersion ? ` (${diagnosis.cliVersion})` : ""}`,
    `index: ${diagnosis.indexPath ?? "none in this workspace"}`,
  ];
  if (!diagnosis.ready) lines.push(`fix: ${diagnosis.remediation}`);
  const last = state.lastError;
  lines.push(`last error: ${last ? `${last.at} ${last.message.split("\n")[0]}` : "none"}`);
  return lines.join("\n");
}

function statusText(diagnosis) {
  if (diagnosis.ready) return "⬡ codegraph";
  return diagnosis.problemCode === "CODEGRAPH_NO_INDEX" ? "⬡ codegraph: no index" : "⬡ codegraph: not installed";
}

/**
 * The Pi extension factory. Registration waits for `session_start`: Pi 0.73 exits at startup when
 * two extensions register one tool name while loading. At session_start the tools registered so
 * far are visible, so the first copy (this file or the package) registers and any later one skips.
 */
function piCodegraph(pi) {
  const state = { diagnosis: undefined, lastError: undefined, active: false };

  pi.on("session_start", async (_event, ctx) => {
    if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
    state.active = true;
    state.diagnosis = await diagnose(ctx.cwd); // once per session: read-only, no explore is run
    pi.registerTool(createTool(state, await loadPeers()));
    pi.registerCommand("codegraph", {
      description: "Show CodeGraph readiness for this workspace (read-only; never indexes)",
      handler: async (_args, cmdCtx) => {
        state.diagnosis = await diagnose(cmdCtx.cwd);
        const report = statusReport(state.diagnosis, state);
        if (cmdCtx.hasUI) cmdCtx.ui.notify(report, state.diagnosis.ready ? "info" : "warning");
        else process.stdout.write(`${report}\n`);
      },
    });
    if (ctx.hasUI) ctx.ui.setStatus("codegraph", statusText(state.diagnosis));
  });

  pi.on("session_shutdown", () => {
    if (state.active) releaseFullOutputs();
  });
}

module.exports = piCodegraph;
module.exports.default = piCodegraph;
module.exports.explore = explore;
module.exports.diagnose = diagnose;
module.exports.releaseFullOutputs = releaseFullOutputs;
module.exports.TOOL_NAME = TOOL_NAME;
module.exports.FALLBACK_LINE = FALLBACK_LINE;
