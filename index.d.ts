import type {
  AddonDiagnosis,
  AnswerDetails,
  ChangeWatchReport,
  CodegraphCommand,
  ErrorCode,
  ErrorDetails,
  GitResult,
  IndexCopyRequest,
  IndexCopyResult,
  RunOptions,
  RunResult,
  SourceChangesRequest,
  SourceChangesResult,
  SourceOutlineRequest,
  SourceOutlineResult,
  SourceScanRequest,
  SourceScanResult,
} from "./binding";

export type {
  AnswerDetails,
  CodegraphCommand,
  EnvDropped,
  ErrorCode,
  ErrorDetails,
  IndexCopyRefusal,
  IndexCopyRequest,
  IndexCopyResult,
  Progress,
  TruncatedBy,
  WriterSeen,
} from "./binding";

/**
 * Stable codes carried by `CodegraphError.code`: the values of the addon's `ErrorCode` enum
 * (binding.d.ts, generated from src/types.rs), as a union of string literals.
 */
export type CodegraphErrorCode = `${ErrorCode}`;

/** Where a call waiting for its turn on an index stands (README: Parallel calls). */
export interface QueuePlace {
  /** Calls running or waiting ahead of it on this index. */
  ahead: number;
  /** How many calls run at once on this index. */
  limit: number;
  waitedMs: number;
}

/**
 * The options of every call (explore(), run(), node(), relations(), search()): `timeoutMs` (the
 * budget, from the moment the call is admitted; the queue wait is bounded at four times it),
 * `onProgress` and `onQueue` (the call's place while it waits, whenever it changes).
 */
export interface CallOptions extends RunOptions {
  onQueue?: (place: QueuePlace) => void;
  /**
   * Pi's workspace (absolute), when `cwd` is another root the call runs in on its behalf (a
   * sub-project's or an added directory's index): code inside it is kept from the child as code
   * inside `cwd` is (PATH entries, the executable, NODE_OPTIONS). Without it, `cwd` alone.
   */
  workspace?: string;
  /**
   * Answer through the workspace's one long-lived CodeGraph (`codegraph serve --mcp`, the native
   * addon's; started on first use, stopped by stopWarm()) where the command is explore or node:
   * the Pi tools set it while the user has auto sync on. The answer is the process's; its details
   * say `warm: true`. Without it, or on the Node runner, a process per call.
   */
  warm?: boolean;
}

/** What the glue adds to every call's `details`: the user's whole wait. */
export interface CallTimes {
  /** From the call to its answer or failure, queue included (what the user waited). */
  durationMs: number;
  /** The wait for a turn on the index (0 when admitted at once). */
  queueMs: number;
  /** How many calls ran at once on this index when it was admitted. */
  parallelLimit: number;
}

/**
 * A file an answer cites that changed (`"changed"`: written after the CodeGraph index was last
 * written) or is gone (`"deleted"`), by its path relative to the workspace as CodeGraph printed it.
 * Told from `stat` alone, within a short deadline; files CodeGraph's own text already flags are
 * left out.
 */
export interface StaleFile {
  path: string;
  state: "changed" | "deleted";
}

/** What the glue adds to an answer that cites stale files (explore): they are also named in one line ending the text. */
export interface Staleness {
  /** Present only when at least one cited file is stale (at most 50 are checked). */
  staleFiles?: StaleFile[];
}

/** What the glue adds to a call's `details` (an answer's or an error's) about the CLI's version (lib/contract/versions.js). */
export interface VersionNotes {
  /**
   * One sentence when `cliVersion` is outside the tested range (older: the commands and options
   * it lacks; newer: used as it is, untested). Absent inside the range or when the version is
   * not known. Never a refusal.
   */
  cliVersionNotice?: string;
}

/** What every call resolves with: the text the model reads and the facts beside it. */
export interface Answer {
  /** The bounded CodeGraph answer, with a truncation marker when it was cut. */
  text: string;
  details: AnswerDetails & CallTimes & Staleness & VersionNotes;
}

/** The parallel limit in force for an index, and where it came from (lib/api/admission.js). */
export interface ParallelPolicy {
  limit: number;
  /** "env": PI_CODEGRAPH_MAX_PARALLEL; "machine": cores and memory against the index size. */
  source: "env" | "machine";
  cores: number;
  memoryBytes: number;
  /** The index size a runner last reported for this workspace, or null before any. */
  indexBytes: number | null;
  perQueryBytes: number;
  /** A PI_CODEGRAPH_MAX_PARALLEL that was ignored (not a whole number from 1 to `max`). */
  envProblem?: { raw: string; max: number };
}

/** Read-only readiness of a workspace: the addon's diagnosis with its problems in words (lib/words/). */
export interface Diagnosis
  extends Omit<AddonDiagnosis, "executableProblem" | "indexProblem" | "problem" | "writeProblem" | "removeProblem"> {
  /** The parallel limit calls on this workspace's index run under. */
  parallel: ParallelPolicy;
  /** Each check's own result: why no executable, why no index (absent when that check passed or could not run). */
  executableProblem?: string;
  indexProblem?: string;
  /** What stops an explore here, as the same code, message and remediation `explore` would give. */
  problemCode?: ErrorCode;
  problem?: string;
  remediation?: string;
  /**
   * Why a command that writes the index would be refused here, and what to do (the index directory,
   * or one of CodeGraph's files in it, is a link: not the workspace's own); absent when none would.
   */
  writeProblem?: string;
  writeRemediation?: string;
  /** Why `uninit` would be refused here (a mount point, files CodeGraph does not make), and what to do. */
  removeProblem?: string;
  removeRemediation?: string;
  /** One sentence when `cliVersion` is outside the tested range, as in an answer's `cliVersionNotice`. */
  versionNotice?: string;
}

/**
 * What every call (explore(), run(), node(), relations(), search()) rejects with. Where the call's time went is in `details`: `durationMs` (always:
 * the whole runner call until the failure), `lockWaitMs` (once the checks found the index: the
 * wait for a CodeGraph writer before the run, 0 when none; on CODEGRAPH_INDEX_BUSY the whole
 * wait) and `runMs` (once the CLI was started: its run until the failure); on CODEGRAPH_TIMEOUT,
 * `writerSeen` names the CodeGraph writer active on the index at the deadline (or null). An
 * answer's `details` carry the same three times, `durationMs >= lockWaitMs + runMs`. The glue
 * then makes `durationMs` the user's whole wait and adds `queueMs` and `parallelLimit`
 * ({@link CallTimes}); a timeout adds what the call observed (`observed`), and a call that gave up
 * in the queue says where it stood (`queue`).
 */
export interface CodegraphError extends Error {
  code: CodegraphErrorCode;
  /** One line: what the user can do about it. Also part of `message`. */
  remediation: string;
  details?: ErrorDetails &
    Partial<CallTimes> &
    VersionNotes & {
      observed?: { siblings: number; limit: number; load: number; cores: number; lockWaitMs: number };
      queue?: { is: "cancelled" | "timedOut"; ahead: number; waitedMs: number; limit: number };
    };
}

/**
 * Runs `codegraph explore -- <request>` in `cwd` (which must hold its own CodeGraph index).
 * Rejects with an {@link CodegraphError}; never throws synchronously.
 */
export declare function explore(
  request: string,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/**
 * Runs one CodeGraph command, described as data (`lib/contract/commands.js` builds descriptions; explore
 * is `exploreCommand(request)`), in `cwd`, with every guarantee explore has: discovery,
 * preflight, quiet environment, caps with marker and full-output file, timeout (`options.timeoutMs`,
 * else the command's), cancel, tree kill, stderr tail, codes. A malformed description rejects with
 * CODEGRAPH_INVALID_OPTIONS and nothing starts. Rejects with an {@link CodegraphError}; never throws
 * synchronously.
 */
export declare function run(
  command: CodegraphCommand,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/** The kinds `codegraph_search` filters by (`codegraph query --kind`; lib/contract/arguments.js SEARCH_KINDS). */
export type SearchKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type_alias"
  | "struct"
  | "enum"
  | "enum_member"
  | "trait"
  | "protocol"
  | "variable"
  | "constant"
  | "property"
  | "field"
  | "namespace"
  | "module"
  | "route"
  | "component"
  | "union";

/**
 * codegraph_node's arguments: `symbol` (one name), or `file` alone (file mode: an indexed file's
 * lines from `offset` (1-1,000,000), at most `limit` (1-2000), or its `outline`); `file` with
 * `symbol` picks the definition. `file` is an index lookup key, never a path to open: no absolute
 * path, no `..`, no leading `-`.
 */
export interface NodeParams {
  symbol?: string;
  file?: string;
  offset?: number;
  limit?: number;
  outline?: boolean;
}

/**
 * codegraph_relations' arguments: `limit` (1-50) for callers/callees, `depth` (1-10) for impact
 * only; or {@link PathParams}.
 */
export type RelationsParams =
  | {
      relation: "callers" | "callees" | "impact";
      symbol: string;
      file?: string;
      limit?: number;
      depth?: number;
    }
  | PathParams;

/** codegraph_relations' `path`: how `from` reaches `to` (names, the rules of `symbol`). */
export interface PathParams {
  relation: "path";
  from: string;
  to: string;
}

/** codegraph_search's arguments: a symbol `name` (or part of one), its `kind`, at most `limit` (1-50) results. */
export interface SearchParams {
  name: string;
  kind?: SearchKind;
  limit?: number;
}

/**
 * Runs `codegraph node [--file=] [--offset=] [--limit=] [--symbols-only] [-- <symbol>]` in `cwd`,
 * with every promise explore has (caps 50 KB / 2,000 lines). Arguments are checked first: a bad
 * one rejects with CODEGRAPH_INVALID_REQUEST (`details.reason`: the tool, the argument and the
 * rule) and nothing starts. Rejects with an {@link CodegraphError}; never throws synchronously.
 */
export declare function node(
  params: NodeParams,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/**
 * Runs `codegraph callers|callees|impact [--file=] [--limit=|--depth=] -- <symbol>` in `cwd`
 * (caps 16 KB / 500 lines), as {@link node} does. `path`: up to three shortest call paths from
 * `from` to `to`, each hop with its definition's file:line and the call's, read from `impact
 * --json` of `to` and `callees --json` of what `from` reaches (every command through the same
 * runner, within one time budget), a hop the graph lacks and the source shows marked "text
 * match"; without a path, where the walk stops. `details.processes` lists the commands it ran
 * (`subcommand`, `symbol`, `runMs`), `details.processRunMs` their sum.
 */
export declare function relations(
  params: RelationsParams,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/** Runs `codegraph query [--kind=] [--limit=] -- <name>` in `cwd` (caps 16 KB / 400 lines), as {@link node} does. */
export declare function search(
  params: SearchParams,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/** codegraph_changes' arguments: none needed; `depth`, impact's hops for each changed symbol (1–4, default 2). */
export interface ChangesParams {
  depth?: number;
}

/**
 * What the working tree's changes touch and break, read-only: git's diff against HEAD (staged,
 * unstaged, untracked; outside git, the files written since the index) mapped to the changed
 * symbols, each with its dependents (`codegraph impact --json`) and its file's tests (`codegraph
 * affected --json`), said within 16 KB / 500 lines. Rejects with CODEGRAPH_GIT when git fails
 * in a repository, or a runner's code.
 */
export declare function changes(
  params: ChangesParams | null | undefined,
  cwd: string,
  signal?: AbortSignal | null,
  options?: CallOptions | null,
): Promise<Answer>;

/** Read-only readiness of `cwd`: which codegraph would run, its version, the workspace's own index (`workspace`: Pi's, when `cwd` is another root, as in CallOptions). */
export declare function diagnose(cwd: string, workspace?: string | null): Promise<Diagnosis>;

/** A project a walk compares with its index: its directory and the index directory its diagnosis found. */
export interface IndexedProject {
  dir: string;
  indexDir: string;
}

/** The files written after one project's index: absolute; `more` when the walk found more than it lists, or stopped early. */
export interface ChangedFiles {
  dir: string;
  files: string[];
  more: boolean;
  /** Where a bound ended the walk (then changes past it are not counted), or null. */
  cut: { stopped: string; filesSeen: number } | null;
  /** "walk"; "git" (git named the candidates of a large tree); "watch" (what git named once its watch was ready, and what the watch saw since). */
  source: "walk" | "git" | "watch";
}

/**
 * The source files written after each project's index: a bounded metadata walk (CodeGraph's
 * extensions, outside what it skips and `.gitignore`s), what the status bar counts; where a bound
 * ends it in git, git's candidates; with `options.watch` (auto sync on), a large project is also
 * watched (Linux). A project whose index time is unknown, or whose walk fails, is left out.
 */
export declare function changedSince(
  projects: IndexedProject[],
  options?: { watch?: boolean },
): Promise<ChangedFiles[]>;
/** Ends every watch changedSince({ watch: true }) started; how many ran. */
export declare function unwatchChanges(): number;

/** One git worktree as `git worktree list --porcelain` names it. */
export interface Worktree {
  dir: string;
  head?: string;
  branch?: string;
  detached?: boolean;
  locked?: boolean;
}

/** The worktree a directory is in and the repository's others; null where git cannot say. */
export declare function worktrees(
  cwd: string,
  signal?: AbortSignal | null,
): Promise<{ own: Worktree; others: Worktree[]; relative: string } | null>;

/**
 * Copies another worktree's CodeGraph index (`request.from`) into `request.to` below `cwd`: new
 * files, never a link, renamed into place once whole; a refusal is a fact (`refused`), and leaves nothing.
 */
export declare function copyIndex(
  cwd: string,
  request: IndexCopyRequest,
  signal?: AbortSignal | null,
): Promise<IndexCopyResult>;

/**
 * Deletes the temp files holding the full output of truncated answers: the listed ones (one
 * session's), or all of this process's. Returns how many.
 */
export declare function releaseFullOutputs(paths?: string[] | null): number;

/** The runner's limits (the addon's exported consts, or the Node runner's same values). */
export interface Limits {
  MAX_REQUEST_CHARS: number;
  MAX_OUTPUT_BYTES: number;
  MAX_OUTPUT_LINES: number;
  DRAIN_LIMIT_BYTES: number;
  STDERR_TAIL_BYTES: number;
  DEFAULT_TIMEOUT_MS: number;
}
export declare function limits(): Limits;

/** Which native binary is loaded, for diagnostics. */
export declare function addonInfo(): { path: string | null; error: string | null };

/** Which runner answers: the native addon, or the plain-Node runner (`fallback`: standing in for it). */
export interface RunnerInfo {
  name: string;
  /** The loaded `.node` file, for the native addon. */
  path: string | null;
  /** Why this runner (e.g. why the addon did not load), or null. */
  note: string | null;
  fallback: boolean;
}
export declare function runnerInfo(): RunnerInfo;
/** Stops every long-lived CodeGraph the runner keeps for `warm` calls (their whole trees); resolves with how many ran. */
export declare function stopWarm(): Promise<number>;
/** The long-lived CodeGraphs running now. */
export declare function warmServers(): Array<{ cwd: string; pid: number | null }>;

/** This copy of pi-codegraph (with two installs, the one Pi loads first is active). */
export declare function extensionInfo(): { name: string; version: string; path: string };

export declare const TOOL_NAME: "codegraph_explore";
/** The line every tool error ends with. */
export declare const FALLBACK_LINE: string;

/** Pi's modules the glue draws with (`BorderedLoader`: the verbs' progress box; else the status slot). */
export interface Peers {
  Type: unknown;
  Text: unknown;
  /** pi-tui's `Box`: a `/codegraph` report's card in the transcript (else the report is a notice). */
  Box?: unknown;
  /** pi-ai's `StringEnum`, for the focused tools' enum fields (relation, kind). */
  StringEnum?: unknown;
  /** Pi's `getAgentDir`: where `/codegraph tools` saves the choice per project (else PI_CODING_AGENT_DIR, ~/.pi/agent). */
  getAgentDir?: () => string;
  BorderedLoader?: unknown;
  formatSize: (bytes: number) => string;
  keyHint: (keybinding: string, description: string) => string;
}

/**
 * The extension factory over given peers (what extensions/index.js builds over Pi's own). At
 * session_start it registers `/codegraph`; the tools follow once the session's start has run,
 * just after (a turn and `/codegraph` wait for it). Copies of pi-codegraph in one session ask each
 * other on Pi's event bus (`pi-codegraph:serving`) which one serves it: the first in Pi's order.
 */
export declare function createExtension(
  getPeers: () => Peers | Promise<Peers>,
): (pi: import("@earendil-works/pi-coding-agent").ExtensionAPI) => void;

/**
 * What the glue runs on: a module shaped like the addon's (binding.d.ts), e.g. `lib/runners/node`.
 * It rejects with `code`, `facts` and `details`, which the glue words (no `facts`: its own words).
 */
export interface Runner extends Limits {
  runCommand(
    command: CodegraphCommand,
    cwd: string,
    signal: AbortSignal | null,
    options: RunOptions | null,
  ): Promise<RunResult>;
  /** The diagnosis without `parallel`: its problems as facts (`{ code, facts }`) or worded already. */
  diagnose(cwd: string, workspace?: string | null): Promise<AddonDiagnosis | Omit<Diagnosis, "parallel">>;
  releaseFullOutputs(paths: string[] | null): number;
  /** The bounded source search (the answers' notes, blind spots and paths; without it they say less). */
  scanSource?(cwd: string, scan: SourceScanRequest, signal?: AbortSignal | null): Promise<SourceScanResult>;
  /** The walk for source files written after the index (the changed count). */
  changedSource?(cwd: string, walk: SourceChangesRequest): Promise<SourceChangesResult>;
  /** The outline of source files (definitions and their lines). */
  outlineSource?(cwd: string, request: SourceOutlineRequest, signal?: AbortSignal | null): Promise<SourceOutlineResult>;
  /** The copy of another worktree's index into this workspace's (`/codegraph init` in a git worktree). */
  copyIndex?(cwd: string, request: IndexCopyRequest, signal?: AbortSignal | null): Promise<IndexCopyResult>;
  /** git as a child, with CodeGraph's rules (codegraph_changes; without it that tool fails coded). */
  runGit?(command: GitCommand, cwd: string, signal?: AbortSignal | null): Promise<GitResult>;
  runnerInfo?(): RunnerInfo;
  /** Where the CodeGraph CLI installed beside the package is (null: none): discovery's last place, after PI_CODEGRAPH_BIN and PATH. */
  setPackageCli?(path: string | null): void;
  /** Stops the long-lived CodeGraphs it keeps for `warm` calls (without it, it keeps none). */
  stopWarm?(): Promise<number>;
  warmServers?(): Array<{ cwd: string; pid: number | null }>;
  /** The watch of a large tree's changes (Linux's inotify): started on first use, its report. */
  watchChanges?(cwd: string, request: SourceChangesRequest): Promise<ChangeWatchReport>;
  unwatchChanges?(): number;
}

/** One git run as lib/contract/git.js describes it: an allowlisted read-only subcommand and its bounds. */
export interface GitCommand {
  subcommand: string;
  args: string[];
  maxBytes: number;
  maxLines: number;
  timeoutMs: number;
}

/** The Pi extension factory (default export). */
declare function piCodegraph(pi: import("@earendil-works/pi-coding-agent").ExtensionAPI): void;
export default piCodegraph;

/** This package's exports, built over `runner` instead of the default one. */
export declare function forRunner(runner: Runner): typeof import("./index");

/**
 * Lets the default runner run the CodeGraph CLI installed beside this package (a checkout's
 * pinned devDependency) when `PI_CODEGRAPH_BIN` is unset and none is on PATH, as Pi's entry and
 * `pi-codegraph doctor` do; the SDK's default export leaves it off. Returns the package's exports.
 */
export declare function usePackageCli(): typeof import("./index");
