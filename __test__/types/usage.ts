// Compiled (never run) by types.test.mjs: index.d.ts must describe the package as callers use it.
import piCodegraph, {
  type Answer,
  type AnswerDetails,
  type CallOptions,
  type CodegraphError,
  type CodegraphErrorCode,
  diagnose,
  type EnvDropped,
  type ErrorDetails,
  explore,
  extensionInfo,
  FALLBACK_LINE,
  forRunner,
  limits,
  type NodeParams,
  node,
  type Progress,
  type RelationsParams,
  type Runner,
  relations,
  releaseFullOutputs,
  runnerInfo,
  type SearchKind,
  type SearchParams,
  type StaleFile,
  search,
  TOOL_NAME,
  type WriterSeen,
} from "../../index";

declare const nodeRunner: Runner;

export async function usage(signal: AbortSignal): Promise<string[]> {
  const glue = forRunner(nodeRunner);
  const options: CallOptions = {
    timeoutMs: 5000,
    onProgress: (p: Progress) => void (p.seenLines + p.tail.length),
    onQueue: (q) => void (q.ahead + q.limit + q.waitedMs),
  };
  const result: Answer = await glue.explore("how does a reach b", "/ws", signal, options);
  const answerDetails: AnswerDetails = result.details;
  const kept: number = answerDetails.keptBytes + limits().MAX_OUTPUT_BYTES + releaseFullOutputs([]);
  const summary: string | undefined = result.details.outputTail;
  const ready: boolean = (await diagnose("/ws")).ready;
  const dropped: EnvDropped[] = [...result.details.envDropped, ...(await diagnose("/ws")).envDropped];
  const droppedText = dropped.map((d) => `${d.variable} ${d.entry} ${d.reason}`).join();
  const runner: string | null = runnerInfo().note;
  const { durationMs, lockWaitMs, runMs } = result.details;
  const queued: number = durationMs - lockWaitMs - runMs - result.details.queueMs + result.details.parallelLimit;
  const limit: number = (await diagnose("/ws")).parallel.limit;
  const stale: StaleFile[] = result.details.staleFiles ?? [];
  const staleText = stale.map((f) => `${f.path} ${f.state === "deleted" ? "deleted" : "changed"}`).join();
  const notices: (string | undefined)[] = [result.details.cliVersionNotice, (await diagnose("/ws")).versionNotice];
  let code: CodegraphErrorCode | undefined;
  let writer: WriterSeen | null | undefined;
  try {
    await explore("q", "/ws");
  } catch (e) {
    const details = (e as CodegraphError).details;
    const addonDetails: ErrorDetails | undefined = details;
    void addonDetails?.durationMs;
    code = (e as CodegraphError).code;
    writer = details?.writerSeen;
    void details?.cliVersionNotice?.length;
    const spent: number | undefined =
      details?.lockWaitMs ?? details?.runMs ?? details?.queueMs ?? details?.observed?.siblings;
    void spent;
  }
  const factory: typeof piCodegraph = glue.default;
  // The focused tools' calls: the same options, result and error types as explore.
  const nodeParams: NodeParams = { file: "src/cart.ts", offset: 1, limit: 40, outline: false };
  const relationsParams: RelationsParams = { relation: "impact", symbol: "charge", depth: 2 };
  const kind: SearchKind = "class";
  const searchParams: SearchParams = { name: "Cart", kind, limit: 5 };
  const focused = await Promise.all([
    node(nodeParams, "/ws", signal, { timeoutMs: 5000, onQueue: (q) => void q.ahead }),
    glue.node({ symbol: "checkout" }, "/ws"),
    relations(relationsParams, "/ws", null, null),
    glue.relations({ relation: "callers", symbol: "charge", file: "src/pay.ts", limit: 5 }, "/ws"),
    search(searchParams, "/ws"),
    glue.search({ name: "Cart" }, "/ws", signal, { onProgress: (p) => void p.seenBytes }),
  ]);
  const focusedBytes: number = focused.reduce((n, r) => n + r.details.keptBytes + r.details.queueMs, 0);
  try {
    await search({ name: "" }, "/ws");
  } catch (e) {
    void (e as CodegraphError).code;
  }
  return [
    String(kept),
    String(summary),
    String(queued),
    String(limit),
    `${writer?.pid} ${writer?.lock} ${writer?.rebuild}`,
    droppedText,
    staleText,
    notices.join(),
    String(ready),
    String(runner),
    String(code),
    extensionInfo().path,
    TOOL_NAME,
    FALLBACK_LINE,
    typeof factory,
    String(focusedBytes),
  ];
}
