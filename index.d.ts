import type { ExploreOptions, ExploreResult } from "./binding";

export type { ExploreDetails, ExploreOptions, ExploreResult } from "./binding";

/** Stable codes carried by `ExploreError.code`. */
export type ExploreErrorCode =
  | "CODEGRAPH_INVALID_REQUEST"
  | "CODEGRAPH_WORKSPACE"
  | "CODEGRAPH_NOT_FOUND"
  | "CODEGRAPH_NO_INDEX"
  | "CODEGRAPH_EXIT"
  | "CODEGRAPH_TIMEOUT"
  | "CODEGRAPH_CANCELLED"
  | "CODEGRAPH_SPAWN"
  | "CODEGRAPH_ADDON";

/** What `explore()` rejects with. */
export interface ExploreError extends Error {
  code: ExploreErrorCode;
  /** One line: what the user can do about it. Also part of `message`. */
  remediation: string;
  details?: {
    executable?: string;
    cliVersion?: string;
    durationMs?: number;
    exitCode?: number | null;
    signal?: number | null;
    stderrTail?: string;
    timeoutMs?: number;
  };
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

export declare const TOOL_NAME: "codegraph_explore";

/** The Pi extension factory (default export). */
declare function piCodegraph(pi: import("@mariozechner/pi-coding-agent").ExtensionAPI): void;
export default piCodegraph;
