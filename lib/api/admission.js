// Admission per index: how many CodeGraph processes run at once on one index, and the queue the
// rest wait in. Pi runs the tool calls of one assistant message in parallel, and every CodeGraph
// query loads the whole index (≈0.5 GB RSS each on a 446 MB index) and takes a core: eight at
// once on two cores all ran out of time where the same eight one after another all answered.
//
// The limit is chosen from the machine (its cores, and half its memory against one query's
// estimated size) unless PI_CODEGRAPH_MAX_PARALLEL sets it. A call's time budget (30 s) starts
// when it is admitted, so a sibling's run never eats it; the wait in the queue is bounded on its
// own (four budgets), visible (onQueue) and cancellable (the call's signal). One queue per index
// per process, first come first served: Pi's calls start in the order the model sent them.

const os = require("node:os");
const path = require("node:path");
const { MAX_TIMEOUT_MS } = require("../contract/limits.js");

/** The variable that sets the limit, and the largest limit it may set. */
const PARALLEL_ENV = "PI_CODEGRAPH_MAX_PARALLEL";
const MAX_PARALLEL = 64;
/** A queued call waits at most this many of its own time budgets before it gives up. */
const QUEUE_BUDGETS = 4;
/**
 * One query's memory, estimated: a Node process with CodeGraph loaded plus the index it maps and
 * caches (measured RSS: ≈355 MiB on Django's 157 MiB index, ≈0.5 GB on a 446 MB one).
 */
const BASE_QUERY_BYTES = 200 * 1024 * 1024;

/** The machine's memory for our purposes: a cgroup's limit where one applies. */
function machineMemory() {
  const total = os.totalmem();
  const constrained = typeof process.constrainedMemory === "function" ? process.constrainedMemory() : 0;
  return constrained > 0 && constrained < total ? constrained : total;
}

/** `PI_CODEGRAPH_MAX_PARALLEL` read: `{ value }`, `{ problem }` (ignored), or `{}` when unset. */
function parallelSetting(env = process.env) {
  const raw = env[PARALLEL_ENV];
  if (raw === undefined || raw === "") return {};
  const text = String(raw).trim();
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= 1 && value <= MAX_PARALLEL) return { value };
  return { problem: { raw: String(raw), max: MAX_PARALLEL } };
}

/**
 * The index sizes the runners reported (a diagnosis's or an answer's `indexBytes`), by key.
 * Admission itself touches no filesystem: on a hung mount a stat or realpath would stall the
 * call (or the host) before the run's own checks, which are bounded, could say so.
 */
const knownSizes = new Map();
const MAX_KNOWN_SIZES = 256;

/** Remembers the index size a runner reported for the workspace `cwd`. */
function noteIndexBytes(cwd, bytes) {
  if (typeof cwd !== "string" || !Number.isSafeInteger(bytes) || bytes < 0) return;
  const key = indexKey(cwd);
  knownSizes.delete(key);
  knownSizes.set(key, bytes);
  if (knownSizes.size > MAX_KNOWN_SIZES) knownSizes.delete(knownSizes.keys().next().value);
}

/**
 * The limit in force for the index of the workspace `cwd`, and why: `{ limit, source: "env" |
 * "machine", cores, memoryBytes, indexBytes (null: not reported yet), perQueryBytes,
 * envProblem? }`.
 */
function parallelPolicy(cwd, env = process.env) {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const memoryBytes = machineMemory();
  const index = typeof cwd === "string" ? (knownSizes.get(indexKey(cwd)) ?? null) : null;
  const perQueryBytes = BASE_QUERY_BYTES + (index ?? 0);
  const byMemory = Math.max(1, Math.floor(memoryBytes / 2 / perQueryBytes));
  const machine = { cores, memoryBytes, indexBytes: index, perQueryBytes };
  const setting = parallelSetting(env);
  if (setting.value) return { limit: setting.value, source: "env", ...machine };
  return {
    limit: Math.min(cores, byMemory, MAX_PARALLEL),
    source: "machine",
    ...machine,
    ...(setting.problem ? { envProblem: setting.problem } : {}),
  };
}

/** The queue key: the workspace as an absolute path (the index is the workspace's own). */
function indexKey(cwd) {
  return typeof cwd === "string" ? path.resolve(cwd) : cwd;
}

/** How long a call with the time budget `budgetMs` may wait in the queue (Node's timers take at most 2^31−1 ms). */
const queueBound = (budgetMs) => Math.min(QUEUE_BUDGETS * budgetMs, MAX_TIMEOUT_MS);

/** Each index's gate: `{ limit, running: Set<ticket>, waiting: ticket[] }`, dropped when idle. */
const gates = new Map();

function gateFor(key) {
  let gate = gates.get(key);
  if (!gate) {
    gate = { limit: 1, running: new Set(), waiting: [] };
    gates.set(key, gate);
  }
  return gate;
}

/** Starts `ticket`: it now runs beside the others, and each of them has seen one more sibling. */
function start(gate, ticket) {
  gate.running.add(ticket);
  const others = gate.running.size - 1;
  for (const t of gate.running) t.siblings = Math.max(t.siblings, others);
  ticket.admit();
}

/** Admits waiting calls while there is room, then tells the rest how many are ahead of them. */
function pump(key, gate) {
  while (gate.waiting.length > 0 && gate.running.size < gate.limit) start(gate, gate.waiting.shift());
  gate.waiting.forEach((t, i) => {
    t.tell(gate.running.size + i);
  });
  if (gate.running.size === 0 && gate.waiting.length === 0) gates.delete(key);
}

/**
 * Waits for a turn on the index in `cwd`. Resolves to a ticket: `{ queueMs, policy, siblings,
 * leave() }` (call leave() exactly once when the run is over; `siblings` is the most calls that
 * ran beside it). Rejects with `{ queue: { is: "cancelled" | "timedOut", ahead, waitedMs, policy } }`
 * when the signal fires or `budgetMs × 4` pass while it waits. `onQueue({ ahead, limit, waitedMs })`
 * hears each change of its place while it waits.
 */
function admit(cwd, { signal, budgetMs, onQueue }) {
  const entered = performance.now();
  const key = indexKey(cwd);
  const policy = parallelPolicy(cwd);
  const gate = gateFor(key);
  gate.limit = policy.limit;
  return new Promise((resolve, reject) => {
    let timer;
    let lastAhead = -1;
    let queued = false;
    const waited = () => Math.round(performance.now() - entered);
    const stopWaiting = () => {
      clearTimeout(timer);
      try {
        signal?.removeEventListener("abort", onAbort);
      } catch {}
    };
    const giveUp = (is) => {
      const at = gate.waiting.indexOf(ticket);
      if (at < 0) return;
      gate.waiting.splice(at, 1);
      stopWaiting();
      reject({ queue: { is, ahead: gate.running.size + at, waitedMs: waited(), policy } });
      pump(key, gate);
    };
    const onAbort = () => giveUp("cancelled");
    const ticket = {
      siblings: 0,
      policy,
      queueMs: 0,
      admit() {
        stopWaiting();
        ticket.queueMs = queued ? waited() : 0;
        let left = false;
        ticket.leave = () => {
          if (left) return;
          left = true;
          gate.running.delete(ticket);
          pump(key, gate);
        };
        resolve(ticket);
      },
      tell(ahead) {
        if (ahead === lastAhead) return;
        lastAhead = ahead;
        try {
          onQueue?.({ ahead, limit: gate.limit, waitedMs: waited() });
        } catch {}
      },
    };
    if (gate.running.size < gate.limit && gate.waiting.length === 0) return start(gate, ticket);
    // An aborted call, or one whose signal is no AbortSignal, waits for nothing: the run rejects
    // it at once, before anything starts.
    try {
      if (signal?.aborted) return start(gate, ticket);
      signal?.addEventListener("abort", onAbort, { once: true });
    } catch {
      return start(gate, ticket);
    }
    queued = true;
    gate.waiting.push(ticket);
    timer = setTimeout(() => giveUp("timedOut"), queueBound(budgetMs));
    pump(key, gate);
  });
}

/**
 * The pass of a command that writes the index (`init`, `sync`, `index`, `uninit`, `unlock`): a
 * write is not a reader, so it takes no reader's slot and waits for none. Readers meet it through
 * the runner's writer rule (a short bounded wait on CodeGraph's lock, then CODEGRAPH_INDEX_BUSY),
 * and it never waits for readers already running: a write from outside Pi (a terminal, a git
 * hook, CodeGraph's watcher) never does either. Shaped as admit()'s ticket; `siblings` counts the
 * readers running as it starts.
 */
function passWrite(cwd) {
  const policy = parallelPolicy(cwd);
  const siblings = gates.get(indexKey(cwd))?.running.size ?? 0;
  return { siblings, policy, queueMs: 0, leave() {} };
}

module.exports = { admit, noteIndexBytes, parallelPolicy, passWrite, queueBound };
