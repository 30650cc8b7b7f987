// The first line of every failure: what went wrong, said from the facts a runner returns
// (`{ code, facts }`). Both runners hand over the same facts, so both say the same words; the
// OS's own text (`os`) is the one part each runner words itself.

const { shownPath } = require("./paths.js");
const { DROP_REASONS } = require("./environment.js");
const { NOT_KEPT_REASONS } = require("./marker.js");
const { notOwnLead } = require("./not-own.js");
const { GIT_REASONS, gitHeadline } = require("./git.js");

/** A path as a message shows it (lib/words/paths.js). */
const shown = (path) => shownPath(path);

/** What a file that is not what it should be is (preflight's `FileKind`). */
const FILE_KINDS = {
  directory: "a directory",
  regularFile: "a regular file",
  fifo: "a FIFO (named pipe)",
  charDevice: "a character device",
  blockDevice: "a block device",
  socket: "a socket",
  special: "a special file",
};
const fileKind = (kind) => FILE_KINDS[kind] ?? FILE_KINDS.special;

/** `reason.is` → the reason's words, per code. A reason a table lacks is a bug, said as such. */
const REQUEST_REASONS = {
  notString: () => "it is not a string",
  blank: () => "it is empty or only whitespace and invisible characters",
  nul: () => "it contains a NUL byte, which no command-line argument can carry",
  tooLong: (r) => `it is ${r.units} characters long as JavaScript counts them (UTF-16 units); the limit is ${r.limit}`,
  batchUnsafe: (r) => `it cannot be passed safely to the batch launcher ${shown(r.executable)}`,
  argument: (r) => argumentSays(r),
};

/** One focused tool's argument and the rule it broke (lib/contract/arguments.js). */
const ARGUMENT_RULES = {
  notObject: () => "the arguments are not an object",
  unreadable: () => "it cannot be read",
  required: (r) => (r.values ? `it is required: one of ${r.values.join(", ")}` : "it is required"),
  notString: () => "it is not a string",
  nul: () => "it contains a NUL byte",
  blank: () => "it is empty or only whitespace",
  tooLong: (r) => `it is longer than ${r.limit} characters`,
  absolute: () =>
    "it is an absolute path; `file` is a path relative to the project root as CodeGraph indexed it (e.g. src/cart.ts), or a suffix of one",
  parent: () => "it has a `..` segment; `file` names an indexed file of this project, never one outside it",
  dash: () => "it starts with `-`",
  control: () => "it contains a line break or control character",
  range: (r) => `it must be a whole number from ${r.min} to ${r.max}`,
  notBoolean: () => "it must be true or false",
  enum: (r) => `it must be one of ${r.values.join(", ")}`,
  unknown: (r) => `the tool has no such argument (its arguments: ${r.names.join(", ")})`,
  symbolOrFile: () => "give `symbol` (one symbol's source and trail) or `file` (an indexed file), or both",
  fileModeOnly: () => "it applies to file mode only (`file` without `symbol`)",
  notFor: (r) =>
    `it does not apply to relation=${r.relation} (callers and callees take symbol and limit, impact takes symbol and depth, path takes from and to)`,
};

function argumentSays(r) {
  const rule = ARGUMENT_RULES[r.rule];
  const says = rule ? rule(r) : `(unnamed rule ${JSON.stringify(r.rule)})`;
  return r.name ? `\`${r.name}\`: ${says}` : says;
}

const OPTION_REASONS = {
  notObject: () => "options is not an object",
  unreadable: (r) => `options.${r.field} cannot be read`,
  timeoutMs: (r) => `${r.field} must be a number of milliseconds from 1 to 2147483647`,
  onProgress: () => "options.onProgress must be a function",
  onQueue: () => "options.onQueue must be a function",
  progressUnusable: () => "options.onProgress cannot be used as a callback",
  notSignal: () => "the signal is not an AbortSignal",
  abortedUnreadable: () => "signal.aborted cannot be read",
  optionsUnreadable: (r) => `they cannot be read (${r.text})`,
  notCommand: () => "the command is not a command description object",
  commandUnreadable: (r) => `command.${r.field} cannot be read`,
  commandField: (r) => `command.${r.field} must be ${EXPECTED[r.expected] ?? r.expected}`,
  subcommand: (r) =>
    `the command's subcommand must be 1 to ${r.maxBytes} lowercase letters and dashes, starting with a letter`,
  tooManyOptions: (r) => `the command has more than ${r.max} options`,
  badOption: (r) =>
    `the command option ${JSON.stringify(r.shown)} is not --name or --name=value (a name of lowercase letters, digits and dashes; a value without NUL or line breaks; at most ${r.maxBytes} bytes)`,
  caps: (r) =>
    `the command's caps must be ${r.minBytes} to ${r.maxBytes} bytes and ${r.minLines} to ${r.maxLines} lines`,
  writeTimeout: (r) => `${r.field} of an index-writing command is at most ${r.maxMs} ms`,
};

/** What a command description's field must be (OptionsReason::CommandField's `expected`). */
const EXPECTED = {
  string: "a string",
  wholeNumber: "a whole number",
  boolean: "true or false",
  progress: '"stdout" or "none"',
  stringList: "an array of strings",
  absolutePath: "an absolute path (Pi's workspace)",
};

const WORKSPACE_REASONS = {
  notString: () => "the workspace path is not a string",
  none: () => "no workspace directory was given",
  relative: () => "it is not an absolute path",
  missing: () => "it does not exist",
  notDirectory: (r) => `it is ${fileKind(r.fileKind)}, not a directory`,
  unreadable: (r) => `it cannot be read (${r.os})`,
  removed: () => "it was removed or renamed during the call",
  blocked: (r) => `it cannot be read or entered (${r.os})`,
  indexDirUnreadable: (r) => `${shown(r.dir)} cannot be read (${r.os})`,
  unanswered: () => "the filesystem did not answer the workspace checks in time",
  other: (r) => r.text,
};

const NOT_FOUND_REASONS = {
  overrideRelative: (r) => `${r.variable}=${shown(r.value)} is not an absolute path`,
  overrideMissing: (r) => `${r.variable}=${shown(r.value)} does not exist or is not a file`,
  notOnPath: (r) =>
    r.skipped === undefined || r.skipped === null
      ? `no \`${r.names.join("` or `")}\` on PATH`
      : `no \`${r.names.join("` or `")}\` on PATH outside the workspace; ${shown(r.skipped)} was skipped because it lives inside the workspace (set ${r.allowVariable}=1 to allow it)`,
  cannotExecute: (r) => `${shown(r.executable)} could not be executed (it, or its interpreter, does not exist)`,
};

const NO_INDEX_REASONS = {
  notDirectory: (r) => `${shown(r.path)} is ${fileKind(r.fileKind)}, not a directory`,
  notRegular: (r) => `${shown(r.path)} is ${fileKind(r.fileKind)}, not a regular file; it was not opened`,
  missing: (r) => `${shown(r.path)} does not exist`,
  unreadable: (r) => `${shown(r.path)} cannot be read (${r.os})`,
  outside: (r) => `${shown(r.path)} resolves to ${shown(r.target)}, outside the workspace`,
  linked: (r) => `${shown(r.path)} is a symbolic link (to ${shown(r.target)}), which CodeGraph would write through`,
  mountPoint: (r) => `${shown(r.path)} is a mount point, whose source uninit would empty`,
  foreignEntry: (r) => `${shown(r.path)} is not a file CodeGraph makes, and uninit would delete it`,
  notSqlite: (r) => `${shown(r.path)} is not a SQLite database`,
  truncated: (r) => `${shown(r.path)} is empty or truncated`,
  removed: (r) => `${shown(r.path)} was removed during the call`,
  cliCannotUse: (r) => `codegraph cannot use ${shown(r.path)} as an index`,
};

const READONLY_REASONS = {
  denied: (r) => `${shown(r.path)} cannot be accessed (${r.os})`,
  readOnlyMount: (r) => `${shown(r.path)} is on a read-only filesystem`,
  cliSaid: () => 'codegraph explore failed with "attempt to write a readonly database"',
};

const SPAWN_REASONS = {
  checksFailed: (r) => `the workspace checks failed: ${r.text}`,
  runtimeFailed: (r) =>
    r.text === undefined
      ? "the addon's async runtime could not start"
      : `the addon's async runtime could not start (${r.text})`,
  callFailed: (r) => `the call failed inside the addon: ${r.text}`,
  wait: (r) => `waiting for codegraph failed: ${r.os}`,
  permission: (r) =>
    `permission denied running ${shown(r.executable)} in the workspace (is it executable, and the workspace enterable?)`,
  execFormat: (r) => `${shown(r.executable)}: Exec format error (${r.why})`,
  batchLauncher: (r) => `${shown(r.executable)} is a batch launcher, which Node will not start without a shell`,
  other: (r) => `${shown(r.executable)}: ${r.os}`,
  bug: (r) => r.text,
};

/** What ran out, by the errno the OS named. */
const RESOURCE_NAMES = {
  EMFILE: "file descriptors (this process's limit)",
  ENFILE: "file descriptors (the system's open-file table)",
  EAGAIN: "processes or threads",
  ENOMEM: "memory",
};

/** What was being done when a resource ran out. */
const STEPS = {
  listWorkspace: () => "listing the workspace",
  readWorkspace: () => "reading the workspace",
  readIndexDir: () => "reading the index directory",
  readIndex: () => "reading the index",
  readIndexHeader: () => "reading the index header",
  readLock: () => "reading CodeGraph's lock file",
  waitCli: () => "waiting for codegraph",
  start: (s) => `starting ${shown(s.executable)}`,
  startRuntime: () => "starting the addon's async runtime",
  loadAddon: () => "loading the native addon",
  loadRunner: () => "loading pi-codegraph's runner",
  addonThread: () => "a thread of the addon",
};

/** The words of each kind of fact, by the name of the Rust enum whose tags they word. */
const WORDED_FACTS = {
  FileKind: FILE_KINDS,
  RequestReason: REQUEST_REASONS,
  OptionsReason: OPTION_REASONS,
  WorkspaceReason: WORKSPACE_REASONS,
  NotFoundReason: NOT_FOUND_REASONS,
  NoIndexReason: NO_INDEX_REASONS,
  ReadOnlyReason: READONLY_REASONS,
  SpawnReason: SPAWN_REASONS,
  Step: STEPS,
  Resource: RESOURCE_NAMES,
  NotKeptReason: NOT_KEPT_REASONS,
  DropReason: DROP_REASONS,
  GitReason: GIT_REASONS,
};

function said(table, reason) {
  const words = table[reason?.is];
  return words ? words(reason) : `(unnamed reason ${JSON.stringify(reason?.is)})`;
}

function resourceReason(f) {
  const failed = f.step?.is === "addonThread" ? "could not start" : "failed";
  return `${said(WORDED_FACTS.Step, f.step)} ${failed} (${f.os})`;
}

/** "pid 12 holds …: a rebuild", or the pid-0 case: a database only being created. */
/** What is known of a writer that Pi's pid namespace lacks (`outside`: "holder" or "unseen"). */
const OUTSIDE_SAYS = {
  holder: "and a process outside Pi's pid namespace holds the index database open",
  unseen: "and processes outside Pi's pid namespace cannot be seen from here",
};

/** A writer with no pid yet: a database one page long (an init creating it), or a lock just created empty (a write taking it). */
const creatingDatabase = (f) => f.pid === 0 && /codegraph\.db$/.test(String(f.lock));

function writerSays(f) {
  const lock = shown(f.lock);
  if (creatingDatabase(f)) return `${lock} holds only its first page: \`codegraph init\` is creating it`;
  if (f.pid === 0) return `${lock} was just created and names no process yet: a CodeGraph write is taking it`;
  if (f.outside)
    return `${lock} names pid ${f.pid}, which does not run in Pi's pid namespace, ${OUTSIDE_SAYS[f.outside]}: a CodeGraph in a container or sandbox that shares the workspace may be writing it`;
  const kind = f.rebuild ? "a `codegraph index` rebuild" : "`codegraph init`, `index` or `sync`";
  return `pid ${f.pid} holds ${lock}: ${kind}`;
}

function busyNote(waitedMs) {
  if (!waitedMs) return ", so an answer now could come from a partial index";
  return `, still after ${(waitedMs / 1000).toFixed(1)} s of waiting; an answer now could come from a partial index`;
}

function exitHow(f) {
  if (f.exitCode !== null && f.exitCode !== undefined) return `exited with code ${f.exitCode}`;
  if (f.signal === null || f.signal === undefined) return "ended abnormally";
  if (f.signalName) return `was killed by ${f.signalName} (signal ${f.signal})`;
  return `was killed by signal ${f.signal}`;
}

const partialBytes = (f) => f.partialBytes ?? 0;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const queries = (n) => `${n} CodeGraph ${n === 1 ? "query" : "queries"}`;

/** "3 CodeGraph queries ahead of it on this index, 2 run at once": a queued call's place. */
function queueSays(q) {
  return `${queries(q.ahead)} ahead of it on this index, ${q.policy.limit} run at once`;
}

/** The call a cancellation ended: explore's, or a focused tool's command (`subcommand`, lib/api/calls.js). */
function cancelledCall(f) {
  return f.subcommand ? `the codegraph ${f.subcommand} call` : "the explore";
}

/** The headline of each code (without the code itself and the final period). */
const HEADLINES = {
  CODEGRAPH_INVALID_REQUEST: (f) =>
    f.reason?.is === "argument"
      ? `the ${f.reason.tool} arguments are invalid: ${said(WORDED_FACTS.RequestReason, f.reason)}`
      : `the Explore request is invalid: ${said(WORDED_FACTS.RequestReason, f.reason)}`,
  CODEGRAPH_INVALID_OPTIONS: (f) =>
    f.reason?.is === "argumentsUnusable"
      ? `the explore arguments could not be used (${f.reason.text})`
      : `the explore options are invalid: ${said(WORDED_FACTS.OptionsReason, f.reason)}`,
  CODEGRAPH_WORKSPACE: (f) =>
    `the workspace ${shown(f.path ?? "")} is not usable: ${said(WORDED_FACTS.WorkspaceReason, f.reason)}`,
  CODEGRAPH_NOT_FOUND: (f) => `the CodeGraph CLI was not found: ${said(WORDED_FACTS.NotFoundReason, f.reason)}`,
  CODEGRAPH_NO_INDEX: (f) =>
    `${f.kind?.is === "notOwn" ? notOwnLead(f) : "this workspace has no usable CodeGraph index"}: ${said(WORDED_FACTS.NoIndexReason, f.reason)}`,
  CODEGRAPH_INDEX_READONLY: (f) =>
    `the CodeGraph index cannot be opened read-write: ${said(WORDED_FACTS.ReadOnlyReason, f.reason)}`,
  CODEGRAPH_INDEX_BUSY: (f) =>
    `${f.outside ? "CodeGraph may be writing this workspace's index right now, from outside Pi's pid namespace" : "CodeGraph is writing this workspace's index right now"} (${writerSays(f)})${busyNote(f.waitedMs)}`,
  CODEGRAPH_INDEX_INTERRUPTED: (f) =>
    `the last ${f.rebuild ? "rebuild" : "write"} of this workspace's CodeGraph index never finished (${shown(f.lock)} names pid ${f.pid}, which is no longer writing it: CodeGraph was stopped mid-write), so the index may hold only part of the project`,
  CODEGRAPH_SPAWN: (f) => `codegraph could not be started: ${said(WORDED_FACTS.SpawnReason, f.reason)}`,
  CODEGRAPH_RESOURCES: (f) => `pi-codegraph ran out of ${RESOURCE_NAMES[f.resource]}: ${resourceReason(f)}`,
  CODEGRAPH_EXIT: (f) => `codegraph ${f.subcommand ?? "explore"} ${exitHow(f)}`,
  CODEGRAPH_TIMEOUT: (f) =>
    f.queue
      ? `codegraph ${f.subcommand ?? "explore"} waited ${seconds(f.queue.waitedMs)} for its turn (${queueSays(f.queue)}) and was not started`
      : `codegraph ${f.subcommand ?? "explore"} did not finish within ${f.timeoutMs} ms and was stopped${
          partialBytes(f)
            ? ` after printing ${partialBytes(f)} bytes of a partial answer (${f.partialShown ? "below" : "kept in details.partialText"})`
            : " before it printed anything"
        }`,
  CODEGRAPH_ADDON: (f) =>
    f.core === "wasm"
      ? "pi-codegraph's WebAssembly core (wasm/), which runs where no native addon loads, could not be loaded"
      : `the pi-codegraph native addon for ${f.target} is not installed`,
  CODEGRAPH_UNTRUSTED: (f) =>
    `Pi does not trust the project ${shownPath(f.path)}, so pi-codegraph neither reads its index nor starts CodeGraph there`,
  CODEGRAPH_GIT: gitHeadline,
  CODEGRAPH_CANCELLED: (f) =>
    f.queue
      ? `${cancelledCall(f)} was cancelled while it waited for its turn (${queueSays(f.queue)}); nothing was started`
      : partialBytes(f)
        ? `${cancelledCall(f)} was cancelled after codegraph had printed ${partialBytes(f)} bytes (the partial answer is ${f.partialShown ? "below" : "in details.partialText"}), and codegraph was stopped`
        : `${cancelledCall(f)} was cancelled before codegraph printed anything, and codegraph was stopped`,
};

/** What went wrong, in one line (a diagnosis's `problem`, `indexProblem`, `executableProblem`). */
function headline(code, facts) {
  const words = HEADLINES[code];
  return words ? words(facts ?? {}) : `${code} (no words for this code)`;
}

module.exports = { WORDED_FACTS, creatingDatabase, headline, queries, seconds };
