import type { Diagnosis, ErrorCode, ExploreErrorDetails, ExploreOptions, ExploreResult } from "./binding";

export type {
  Diagnosis,
  ErrorCode,
  ExploreDetails,
  ExploreErrorDetails,
  ExploreOptions,
  ExploreProgress,
  ExploreResult,
  TruncatedBy,
} from "./binding";

/**
 * Stable codes carried by `ExploreError.code`: the values of the addon's `ErrorCode` enum
 * (binding.d.ts, generated from src/types.rs), as a union of string literals.
 */
export type ExploreErrorCode = `${ErrorCode}`;

/** What `explore()` rejects with. */
export interface ExploreError extends Error {
  code: ExploreErrorCode;
  /** One line: what the user can do about it. Also part of `message`. */
  remediation: string;
  details?: ExploreErrorDetails;
}

/**
 * Runs `codegraph explore -- <request>` in `cwd` (which must hold its own CodeGraph index).
 * Rejects with an {@link ExploreError}; never throws synchronously.
 */
export declare function explore(
  request: string,
  cwd: string,
  signal?: AbortSignal | null,
  options?: ExploreOptions | null,
): Promise<ExploreResult>;

/** Read-only readiness of `cwd`: which codegraph would run, its version, the workspace's own index. */
export declare function diagnose(cwd: string): Promise<Diagnosis>;

/** Deletes the temp files holding the full output of truncated answers; returns how many. */
export declare function releaseFullOutputs(): number;

/** Which native binary is loaded, for diagnostics. */
export declare function addonInfo(): { path: string | null; error: string | null };

export declare const TOOL_NAME: "codegraph_explore";
/** The line every tool error ends with. */
export declare const FALLBACK_LINE: string;

/** The extension factory over given TypeBox/TUI modules (what extension.js uses). */
export declare function createExtension(
  getPeers: () => { Type: unknown; Text: unknown } | Promise<{ Type: unknown; Text: unknown }>,
): (pi: import("@mariozechner/pi-coding-agent").ExtensionAPI) => void;

/** The Pi extension factory (default export). */
declare function piCodegraph(pi: import("@mariozechner/pi-coding-agent").ExtensionAPI): void;
export default piCodegraph;
