// A CodeGraph command is data: a command the runner has never seen is one description, defined
// here in the test, and every guarantee explore has holds for it on both runners: the exact
// argv (options as --name=value, the user's text after --), the command's own caps with marker and
// full-output file, its timeout, cancel, nothing left running; a malformed description is a coded
// rejection and nothing starts.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, root, tempDir, withEnv } from "../helpers/index.mjs";
import { assertNothingLeft, cleanup, isAlive, waitFor } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const { codegraphCommand } = createRequire(import.meta.url)(path.join(root, "lib", "contract", "commands.js"));
const suite = useFaultsSuite();

// The whole of a new command (issue 22's `/codegraph status`): this description, nothing else.
const status = (spec = {}) =>
  codegraphCommand("status", {
    options: { json: true },
    needsIndex: false,
    maxBytes: 8 * 1024,
    maxLines: 100,
    ...spec,
  });
// And one with a valued option and the user's text (issue 23's `codegraph_relations`).
const callers = (symbol) => codegraphCommand("callers", { options: { limit: 3 }, positional: symbol });

const holders = [];
afterEach(() => cleanup(...holders.splice(0)));

// Runs command descriptions through run() itself, no tool's call: once per runner (its `explore` row).
eachRunner(
  "a command is data",
  (_calls, runner) => {
    const { run } = runner.module;
    const runWith = async (bin, command, cwd, signal, options) => {
      const started = Date.now();
      const outcome = await withEnv({ PI_CODEGRAPH_BIN: bin }, () =>
        run(command, cwd, signal, options).then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
      );
      return { ...outcome, ms: Date.now() - started };
    };
    const recorded = (log) =>
      fs
        .readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).argv);

    test("the exact argv: the subcommand, options as --name=value or --flag, the user's text after --", async () => {
      const log = path.join(tempDir(), "argv.jsonl");
      const fake = fakeCli([
        ["record", log],
        ["stdout", "{}\n"],
      ]);
      const bare = makeWorkspace({ index: false });
      const result = expectResult(await runWith(fake.file, status(), bare));
      assert.equal(result.text, "{}\n");
      assert.equal(result.details.exitCode, 0);
      expectResult(await runWith(fake.file, callers("-p /etc"), suite.ws));
      assert.deepEqual(recorded(log), [
        ["status", "--json"],
        ["callers", "--limit=3", "--", "-p /etc"],
      ]);
      // The index requirement is the description's: callers (needsIndex) refuses the bare workspace.
      expectError(await runWith(fake.file, callers("main"), bare), "CODEGRAPH_NO_INDEX");
      assert.equal(recorded(log).length, 2, "the CLI did not run without an index");
    });

    test("the command's own caps: text and marker within them, the full output in its file", async () => {
      const line = `${"s".repeat(99)}\n`;
      const fake = fakeCli([["stdout", line.repeat(300)]]);
      const result = expectResult(await runWith(fake.file, status(), suite.ws));
      const d = result.details;
      assert.equal(d.truncated, true);
      assert.ok(Buffer.byteLength(result.text) <= 8 * 1024, `${Buffer.byteLength(result.text)} bytes`);
      assert.ok(result.text.split("\n").length <= 100, `${result.text.split("\n").length} lines`);
      assert.equal(d.totalBytes, 300 * 100);
      assert.match(result.text, /\[Output truncated by (bytes|lines): showing \d+ of 300 lines/);
      assert.equal(fs.readFileSync(d.fullOutputPath, "utf8"), line.repeat(300));
      runner.module.releaseFullOutputs([d.fullOutputPath]);
    });

    test("its timeout (the description's, or options.timeoutMs) stops the whole tree: CODEGRAPH_TIMEOUT", async () => {
      const fake = fakeCli([["grandchild", "ignore"], ["report"], ["hang"]]);
      const own = await runWith(fake.file, status({ timeoutMs: 700 }), suite.ws);
      assert.equal(expectError(own, "CODEGRAPH_TIMEOUT").details.timeoutMs, 700);
      // Its words name the command that ran, not explore (a `/codegraph status` shows this headline).
      assert.match(own.error.message, /^CODEGRAPH_TIMEOUT: codegraph status did not finish within 700 ms/);
      assert.doesNotMatch(own.error.message, /explore/);
      assert.ok(own.ms >= 700 && own.ms < 5000, `took ${own.ms} ms`);
      const p = fake.readPids();
      await waitFor(() => !isAlive(p.self) && !isAlive(p.grandchild), { timeoutMs: 3000, what: "the tree to die" });
      const caller = await runWith(fake.file, status(), suite.ws, null, { timeoutMs: 600 });
      assert.equal(expectError(caller, "CODEGRAPH_TIMEOUT").details.timeoutMs, 600);
      await assertNothingLeft();
    });

    test("cancel stops it with CODEGRAPH_CANCELLED and the partial answer; nothing is left running", async () => {
      const fake = fakeCli([["stdout", "partial\n"], ["grandchild", "ignore"], ["report"], ["hang"]]);
      const ac = new AbortController();
      const pending = runWith(fake.file, status(), suite.ws, ac.signal);
      await waitFor(() => fs.existsSync(fake.pids), { what: "the command to start" });
      ac.abort();
      const err = expectError(await pending, "CODEGRAPH_CANCELLED");
      assert.equal(err.details.partialText, "partial\n");
      assert.match(
        err.message,
        /^CODEGRAPH_CANCELLED: the codegraph status call was cancelled after codegraph had printed/,
      );
      await assertNothingLeft();
    });

    test("progress is the description's: partial stdout with progress stdout, none with progress none", async () => {
      const steps = [
        ["stdout", "one\n"],
        ["sleep", 400],
        ["stdout", "two\n"],
        ["sleep", 400],
        ["stdout", "three\n"],
      ];
      for (const [progress, expected] of [
        ["stdout", true],
        ["none", false],
      ]) {
        const seen = [];
        const fake = fakeCli(steps);
        const outcome = await runWith(fake.file, status({ progress }), suite.ws, null, {
          onProgress: (p) => seen.push(p.text),
        });
        assert.equal(expectResult(outcome).text, "one\ntwo\nthree\n");
        assert.equal(seen.length > 0, expected, `progress ${progress}: ${JSON.stringify(seen)}`);
      }
    });

    test("an index-writing command is refused at once while another writer holds the lock; a reader waits", async () => {
      const writer = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      holders.push(writer.pid);
      const ws = makeWorkspace();
      fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.lock"), String(writer.pid));
      const ran = path.join(tempDir(), "ran");
      const fake = fakeCli([["appendArgv0", ran]]);
      const sync = codegraphCommand("sync", { writesIndex: true, timeoutMs: 60 * 60 * 1000 });
      const refused = await runWith(fake.file, sync, ws);
      const err = expectError(refused, "CODEGRAPH_INDEX_BUSY");
      assert.ok(err.message.includes(`pid ${writer.pid}`), err.message);
      const waited = await runWith(fake.file, status({ timeoutMs: 1200 }), ws);
      expectError(waited, "CODEGRAPH_INDEX_BUSY");
      assert.ok(waited.ms >= 1100, `a reader waited ${waited.ms} ms for the writer`);
      // Compared with the reader's wait in the same run (a busy machine slows both), never with a
      // clock: a write that waited would have waited for the writer up to 10 s.
      assert.ok(refused.ms < waited.ms, `refused in ${refused.ms} ms, a reader waited ${waited.ms} ms`);
      assert.equal(fs.existsSync(ran), false, "the CLI never ran");
    });

    test("a malformed description is CODEGRAPH_INVALID_OPTIONS (its text CODEGRAPH_INVALID_REQUEST); nothing starts", async () => {
      const ran = path.join(tempDir(), "ran");
      const fake = fakeCli([["appendArgv0", ran]]);
      const good = status();
      const options = [
        null,
        "status --json",
        { ...good, subcommand: "--json" },
        { ...good, subcommand: "Status" },
        { ...good, subcommand: "status; rm -rf /" },
        { ...good, subcommand: undefined },
        { ...good, options: "--json" },
        { ...good, options: ["-j"] },
        { ...good, options: ["--JSON"] },
        { ...good, options: ["--path=a\nb"] },
        { ...good, options: ["--path=a\0b"] },
        { ...good, options: [42] },
        { ...good, options: Array(33).fill("--json") },
        { ...good, maxBytes: 16 * 1024 * 1024 + 1 },
        { ...good, maxBytes: 100 },
        { ...good, maxLines: 16 * 1024 * 1024 + 1 },
        { ...good, maxLines: 1.5 },
        { ...good, timeoutMs: 0 },
        { ...good, timeoutMs: "30000" },
        { ...good, writesIndex: "yes" },
        { ...good, needsIndex: undefined },
        { ...good, progress: "stderr" },
        { ...good, writesIndex: true, timeoutMs: 60 * 60 * 1000 + 1 },
        Object.defineProperty({ ...good }, "options", {
          get() {
            throw new Error("trap");
          },
        }),
        {
          ...good,
          options: new Proxy(["--json"], {
            get: () => {
              throw new Error("trap");
            },
          }),
        },
        new Proxy(good, {
          has: () => {
            throw new Error("trap");
          },
        }),
        new Proxy(good, {
          get: () => {
            throw new Error("trap");
          },
        }),
      ];
      for (const [i, command] of options.entries()) {
        const err = expectError(await runWith(fake.file, command, suite.ws), "CODEGRAPH_INVALID_OPTIONS");
        assert.ok(err.remediation, `case ${i}`);
      }
      for (const positional of [undefined, null, 7, "", " \u200b\n", "a\0b", "x".repeat(10001)]) {
        expectError(await runWith(fake.file, status({ positional }), suite.ws), "CODEGRAPH_INVALID_REQUEST");
      }
      const writing = { ...good, writesIndex: true };
      const tooLong = await runWith(fake.file, writing, suite.ws, null, { timeoutMs: 60 * 60 * 1000 + 1 });
      expectError(tooLong, "CODEGRAPH_INVALID_OPTIONS");
      assert.equal(fs.existsSync(ran), false, "the CLI never started");
    });
  },
  { tools: ["explore"] },
);
