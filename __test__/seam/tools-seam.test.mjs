// What differs per call, at the seam where the calls meet the runner: explore() and each focused
// tool (node, relations with each relation, search) over a recording stub, a runner that records
// the command description it receives and hands it to the real runner (the addon, the Node
// runner). The runner-level contract (spawn, tree kill, env, preflight, discovery, caps while
// streaming, spill, exit) is proven once, through explore, by the fault catalogue
// (__test__/faults/): what a focused tool adds is its description (its argv, its caps), its
// argument rules and its words, all proven here; tools-real.test.mjs runs each against the real CLI.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { BLANK_TABLE } from "../helpers/blank.mjs";
import { implementations } from "../helpers/impl.mjs";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir, waitFor, withEnv } from "../helpers/index.mjs";
import { processesDie } from "../helpers/processes.mjs";
import { recording, runnerOf } from "../helpers/recording.mjs";

const require = createRequire(import.meta.url);
const { exploreCommand, nodeCommand, relationsCommand, FOCUSED_CAPS } = require("../../lib/contract/commands.js");
const { MAX_NAME_CHARS } = require("../../lib/contract/arguments.js");
const { toolRow } = require("../../lib/contract/tools.js");

/** Every call: its label, the glue name, its arguments for a text, its description, its subcommand, its caps. */
const CALLS = [
  ["explore", "explore", (q) => q, exploreCommand, "explore"],
  ["codegraph_node", "node", (q) => ({ symbol: q }), nodeCommand, "node"],
  ...["callers", "callees", "impact"].map((relation) => [
    `codegraph_relations (${relation})`,
    "relations",
    (q) => ({ relation, symbol: q }),
    relationsCommand,
    relation,
  ]),
  ["codegraph_search", "search", (q) => ({ name: q }), toolRow("codegraph_search").command, "query"],
].map(([label, glue, params, describe, subcommand]) => ({
  label,
  glue,
  params,
  description: (q) => describe(params(q)),
  subcommand,
  focused: glue !== "explore",
  caps: FOCUSED_CAPS[glue] ?? { maxBytes: 51200, maxLines: 2000 },
}));
const FOCUSED = CALLS.filter((c) => c.focused);

const settled = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

let ws;
before(() => {
  ws = makeWorkspace();
});

for (const impl of implementations) {
  describe(`${impl.name}: each call through the recording stub`, () => {
    const { glue, seen } = recording(runnerOf(impl.id));
    const call = (c, text, ...rest) => settled(glue[c.glue](c.params(text), ...rest));
    const withBin = (bin, fn) => withEnv({ PI_CODEGRAPH_BIN: bin }, fn);

    test("each call reaches the runner once, with its own description and the caller's cwd, signal and options", async () => {
      const fake = fakeCli([["stdout", "answer\n"]]);
      const signal = new AbortController().signal;
      const onProgress = () => {};
      const explore = exploreCommand("Cart");
      for (const c of CALLS) {
        seen.length = 0;
        const r = expectResult(
          await withBin(fake.file, () => call(c, "Cart", ws, signal, { timeoutMs: 4321, onProgress })),
        );
        assert.equal(r.text, "answer\n", c.label);
        assert.equal(seen.length, 1, `${c.label}: one runCommand`);
        const [{ command, cwd, signal: passed, options }] = seen;
        assert.deepEqual(command, c.description("Cart"), c.label);
        assert.equal(command.subcommand, c.subcommand);
        assert.equal(command.positional, "Cart", `${c.label}: the text is the positional, after --`);
        assert.deepEqual({ maxBytes: command.maxBytes, maxLines: command.maxLines }, c.caps, `${c.label}: its caps`);
        // Everything else the runner reads is explore's: the same budget, a read, the index needed, progress.
        for (const key of ["timeoutMs", "writesIndex", "needsIndex", "progress", "allowInterrupted"])
          assert.deepEqual(command[key], explore[key], `${c.label}: ${key} as explore's`);
        assert.equal(cwd, ws);
        assert.equal(passed, signal, `${c.label}: the caller's signal itself`);
        assert.equal(options.timeoutMs, 4321, `${c.label}: the caller's budget`);
        assert.equal(typeof options.onProgress, "function", `${c.label}: the caller's progress listener`);
      }
    });

    test("each call's answer is cut at its own caps while it streams, the marker and the full output kept", async () => {
      const line = "src/cart.ts:12  function Cart() flows\n"; // 39 bytes
      const fake = fakeCli([["stdout", line.repeat(3000)]]);
      for (const c of CALLS) {
        const r = expectResult(await withBin(fake.file, () => call(c, "Cart", ws)));
        const d = r.details;
        assert.equal(d.truncated, true, c.label);
        assert.ok(Buffer.byteLength(r.text) <= c.caps.maxBytes, `${c.label}: within ${c.caps.maxBytes} bytes`);
        assert.ok(r.text.split("\n").length <= c.caps.maxLines, `${c.label}: within ${c.caps.maxLines} lines`);
        // Cut at this call's caps, not a smaller one: near its line cap or its byte cap (the marker takes the rest).
        assert.ok(
          d.keptLines >= c.caps.maxLines - 10 || d.keptBytes >= c.caps.maxBytes - 500,
          `${c.label}: kept ${d.keptLines} lines, ${d.keptBytes} bytes of caps ${JSON.stringify(c.caps)}`,
        );
        assert.match(r.text, /showing \d+ of 3000 lines/);
        // A line-bound cut: the whole text, marker included, is the line cap.
        if (d.keptBytes < c.caps.maxBytes - 500) assert.equal(r.text.split("\n").length, c.caps.maxLines, c.label);
        assert.equal(fs.statSync(d.fullOutputPath).size, line.length * 3000, `${c.label}: the full output whole`);
        glue.releaseFullOutputs([d.fullOutputPath]);
      }
    });

    test("a failure names the command that ran: exit, timeout and cancel, with explore's code, the CLI's tree gone", async () => {
      const exits = fakeCli([
        ["stderr", "boom\n"],
        ["exit", 3],
      ]);
      for (const c of CALLS) {
        const err = expectError(await withBin(exits.file, () => call(c, "Cart", ws)), "CODEGRAPH_EXIT");
        assert.match(err.message, new RegExp(`^CODEGRAPH_EXIT: codegraph ${c.subcommand} exited`), c.label);
        assert.ok(err.remediation.includes(`\`codegraph ${c.subcommand}\``), `${c.label}: ${err.remediation}`);
        assert.equal(err.details.exitCode, 3);
      }
      const hangs = fakeCli([["grandchild"], ["report"], ["hang"]]);
      for (const [i, c] of CALLS.entries()) {
        // Each tool's words at 300 ms; the tree's death, the runner's guarantee, once, with time
        // for the fake (a Node process) to start its grandchild and report both on a loaded machine.
        const timeoutMs = i === 0 ? 1500 : 300;
        const err = expectError(
          await withBin(hangs.file, () => call(c, "Cart", ws, undefined, { timeoutMs })),
          "CODEGRAPH_TIMEOUT",
        );
        assert.match(
          err.message,
          new RegExp(`^CODEGRAPH_TIMEOUT: codegraph ${c.subcommand} did not finish within ${timeoutMs} ms`),
        );
        if (i === 0) {
          const { self, grandchild } = hangs.readPids();
          await processesDie([self, grandchild], `${c.label}: the timed-out tree to die`);
        }
        fs.rmSync(hangs.pids, { force: true });
      }
      for (const c of CALLS) {
        const controller = new AbortController();
        const pending = withBin(hangs.file, () => call(c, "Cart", ws, controller.signal));
        await waitFor(() => fs.existsSync(hangs.pids), { what: `${c.label}: the CLI started` });
        controller.abort();
        const err = expectError(await pending, "CODEGRAPH_CANCELLED");
        const named = c.focused ? `the codegraph ${c.subcommand} call` : "the explore";
        assert.ok(err.message.startsWith(`CODEGRAPH_CANCELLED: ${named} was cancelled`), err.message);
        const { self, grandchild } = hangs.readPids();
        await processesDie([self, grandchild], `${c.label}: the cancelled tree to die`);
        fs.rmSync(hangs.pids);
      }
    });
  });
}

// The argument rules are the glue's (lib/contract/arguments.js), before any runner: once, over a
// stub that must never be reached.
describe("the focused tools' text argument, before any runner", () => {
  const { glue, seen } = recording({
    runCommand: () => assert.fail("a refused call never reaches the runner"),
    diagnose: () => assert.fail("no diagnose"),
    releaseFullOutputs: () => 0,
    runnerInfo: () => ({ name: "stub", path: null, note: null, fallback: false }),
  });

  test(`its limit is ${MAX_NAME_CHARS} UTF-16 units, counted as the CLI counts them: one emoji more is refused`, async () => {
    for (const c of FOCUSED) {
      const err = expectError(
        await settled(glue[c.glue](c.params("😀".repeat(MAX_NAME_CHARS / 2 + 1)), ws)),
        "CODEGRAPH_INVALID_REQUEST",
      );
      const argument = c.glue === "search" ? "name" : "symbol";
      assert.deepEqual(err.details, { tool: c.label.split(" ")[0], argument, rule: "tooLong" });
      assert.match(err.message, new RegExp(`longer than ${MAX_NAME_CHARS} characters`));
    }
    assert.equal(seen.length, 0);
  });

  test("codegraph_node: a symbol with a path separator is a file key, so a leading dash is refused", async () => {
    for (const symbol of ["-p /etc", "--path=/etc", "-rf /", "-a\\b"]) {
      const err = expectError(await settled(glue.node({ symbol }, ws)), "CODEGRAPH_INVALID_REQUEST");
      assert.deepEqual(err.details, { tool: "codegraph_node", argument: "symbol", rule: "dash" }, symbol);
    }
    assert.equal(seen.length, 0);
  });

  test("blank is explore's rule (Unicode White_Space, Cc and Cf; not JS trim()): each table entry refused", async () => {
    for (const c of FOCUSED) {
      const argument = c.glue === "search" ? "name" : "symbol";
      for (const [label, text] of Object.entries(BLANK_TABLE)) {
        const err = expectError(await settled(glue[c.glue](c.params(text), ws)), "CODEGRAPH_INVALID_REQUEST");
        assert.deepEqual(err.details, { tool: c.label.split(" ")[0], argument, rule: "blank" }, `${c.label}: ${label}`);
        assert.match(err.message, new RegExp(`\`${argument}\`: it is empty or only whitespace`));
      }
    }
    assert.equal(seen.length, 0);
  });
});

// The text reaches the description verbatim: the runner passes a description's positional after
// `--` as one argv element, byte for byte (faults/request.test.mjs, through explore).
describe("the focused tools' text argument, verbatim into the description", () => {
  const TEXTS = [
    "é".repeat(MAX_NAME_CHARS),
    "\ufeffa",
    "\u0085?\u0085",
    "\u202e1",
    "`touch x` $(touch x) ; && || | > < ${IFS} * ? ~ ! # 'q' \"q\" \\",
    "newline\nand\ttab and\rreturn",
    "cafe\u0301 vs caf\u00e9",
    "--version",
    "-rf /",
    "--",
    "-",
  ];
  let dir;
  before(() => {
    dir = tempDir("pi-codegraph-seam-");
  });
  for (const c of FOCUSED.filter((f) => f.glue !== "node")) {
    // codegraph_node is left out: a symbol with a path separator or a leading dash is file mode
    // or refused there (its own rules, tools-args.test.mjs).
    test(`${c.label}: every text is the description's positional, unchanged`, async () => {
      const { glue, seen } = recording({
        runCommand: async (command) => ({ text: `${command.positional}\n`, details: {} }),
        diagnose: async () => ({}),
        releaseFullOutputs: () => 0,
        runnerInfo: () => ({ name: "stub", path: null, note: null, fallback: false }),
      });
      for (const text of TEXTS) {
        seen.length = 0;
        await settled(glue[c.glue](c.params(text), dir));
        assert.equal(seen.length, 1, JSON.stringify(text));
        assert.equal(seen[0].command.positional, text);
      }
      assert.ok(path.isAbsolute(dir));
    });
  }
});
