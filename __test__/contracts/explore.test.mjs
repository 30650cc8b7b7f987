// The explore() contract, driven by the fake CLI: what it resolves with and what it rejects with.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import {
  fakeBinDir,
  hashTree,
  isAlive,
  makeWorkspace,
  parseEcho,
  processesDie,
  readJsonFile,
  readLog,
  rejectsWith,
  tempDir,
  waitFor,
  withEnv,
} from "../helpers/index.mjs";
import { toolCall } from "../helpers/tools.mjs";

// Against explore() on each runner. The focused tools reach the same run() with their own
// description: their argv, caps, text rules and failure words are proven at that seam
// (tools-seam.test.mjs, tools-args.test.mjs) and against the real CLI (tools-real.test.mjs).
for (const [impl, tool] of implementations.map((i) => [i, toolCall("explore")])) {
  describe(`${impl.name}, ${tool.label}`, () => {
    const explore = tool.adapt(impl.module);
    const caps = { maxBytes: 51200, maxLines: 2000 };

    let bin;
    let ws;
    let scratch;
    const originalPath = process.env.PATH;

    before(() => {
      bin = fakeBinDir();
      ws = makeWorkspace();
      scratch = tempDir();
      process.env.PATH = bin;
      delete process.env.PI_CODEGRAPH_BIN;
    });
    after(() => {
      process.env.PATH = originalPath;
    });

    let n = 0;
    /** Per-test files for the fake's call log and its pid report. */
    function files() {
      n += 1;
      return { log: path.join(scratch, `log-${n}.jsonl`), pids: path.join(scratch, `pids-${n}.json`) };
    }

    function fake(vars, fn) {
      return withEnv(vars, fn);
    }

    /** The kept CLI text (by the reported byte count) and what follows it. */
    function splitKept(result) {
      const bytes = Buffer.from(result.text);
      const kept = result.details.keptBytes;
      return [bytes.subarray(0, kept).toString(), bytes.subarray(kept).toString()];
    }

    describe("arguments and workspace", () => {
      const awkward = [
        "how does checkout call charge",
        `quotes "double" and 'single'`,
        "$(touch /tmp/pwned) `id` ${HOME}",
        "a; rm -rf / | cat & echo > /tmp/x < y * ?",
        "line one\nline two\ttabbed",
        "Unicode: wie ruft checkout → charge auf? 日本語 🚀 עברית ́",
        "-p /etc --max-files 1",
        "--help",
        "-",
        "  leading and trailing spaces  ",
      ];
      for (const request of awkward) {
        test(`passes ${JSON.stringify(request).slice(0, 40)} as one argv element after --`, async () => {
          const f = files();
          const result = await fake({ FAKE_CG_LOG: f.log }, () => explore(request, ws));
          const echoed = parseEcho(result.text);
          assert.deepEqual(echoed.argv, [tool.subcommand, "--", request]);
          assert.equal(echoed.cwd, ws);
          assert.equal(readLog(f.log).length, 1);
        });
      }

      test("runs in the given workspace, not the process cwd", async () => {
        assert.notEqual(process.cwd(), ws);
        const result = await explore("where is main", ws);
        assert.equal(parseEcho(result.text).cwd, ws);
        assert.equal(result.details.cwd, ws);
      });

      test("reports executable, CLI version, exit code, duration and sizes", async () => {
        const result = await explore("where is main", ws);
        const d = result.details;
        assert.equal(d.executable, path.join(bin, "codegraph"));
        assert.equal(d.cliVersion, "9.9.9-fake");
        assert.equal(d.exitCode, 0);
        assert.equal(d.request, "where is main");
        assert.equal(typeof d.durationMs, "number");
        assert.equal(d.lockWaitMs, 0, "no writer: no wait");
        assert.ok(d.runMs <= d.durationMs, `runMs ${d.runMs} within durationMs ${d.durationMs}`);
        assert.equal(d.truncated, false);
        assert.equal(d.keptBytes, Buffer.byteLength(result.text));
        assert.equal(d.totalBytes, d.keptBytes);
        assert.equal(d.keptLines, 2);
      });

      test("gives the child quiet defaults, and an explicit user setting wins", async () => {
        const f = files();
        await fake({ FAKE_CG_LOG: f.log, CODEGRAPH_TELEMETRY: "1" }, () => explore("q", ws));
        const [call] = readLog(f.log);
        assert.equal(call.env.CODEGRAPH_TELEMETRY, "1");
        assert.equal(call.env.CODEGRAPH_NO_DOWNLOAD, "1");
        assert.equal(call.env.CODEGRAPH_NO_UPDATE_CHECK, "1");
        assert.equal(call.env.NO_COLOR, "1");
      });

      test("leaves the index byte-identical", async () => {
        const before = hashTree(path.join(ws, ".codegraph"));
        await explore("what calls main", ws);
        assert.deepEqual(hashTree(path.join(ws, ".codegraph")), before);
      });
    });

    describe("discovery", () => {
      test("CODEGRAPH_NOT_FOUND when no codegraph is on PATH", async () => {
        const empty = tempDir();
        const err = await fake({ PATH: empty }, () => rejectsWith(explore("q", ws), "CODEGRAPH_NOT_FOUND"));
        assert.match(err.message, /npm install -g @colbymchenry\/codegraph/);
      });

      test("a codegraph planted in the workspace is never run, even with '.' on PATH", async () => {
        const planted = makeWorkspace();
        const marker = path.join(planted, "planted-ran");
        fs.writeFileSync(path.join(planted, "codegraph"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
        await fake({ PATH: `.${path.delimiter}${path.delimiter}` }, () =>
          rejectsWith(explore("q", planted), "CODEGRAPH_NOT_FOUND"),
        );
        assert.equal(fs.existsSync(marker), false);
      });

      test("PI_CODEGRAPH_BIN names the executable (absolute only)", async () => {
        const other = fakeBinDir();
        const exe = path.join(other, "codegraph");
        const result = await fake({ PATH: tempDir(), PI_CODEGRAPH_BIN: exe }, () => explore("q", ws));
        assert.equal(result.details.executable, exe);
        await fake({ PI_CODEGRAPH_BIN: "codegraph" }, () => rejectsWith(explore("q", ws), "CODEGRAPH_NOT_FOUND"));
      });

      test("CODEGRAPH_SPAWN when the executable cannot be run", async () => {
        const dir = tempDir();
        const exe = path.join(dir, "codegraph");
        fs.writeFileSync(exe, "not a program", { mode: 0o644 });
        await fake({ PI_CODEGRAPH_BIN: exe }, () => rejectsWith(explore("q", ws), "CODEGRAPH_SPAWN"));
      });
    });

    describe("preflight", () => {
      test("CODEGRAPH_NO_INDEX when the workspace has no .codegraph, and the CLI never runs", async () => {
        const f = files();
        const bare = makeWorkspace({ index: false });
        const err = await fake({ FAKE_CG_LOG: f.log }, () => rejectsWith(explore("q", bare), "CODEGRAPH_NO_INDEX"));
        assert.ok(err.message.includes(`codegraph init\` in ${bare}`), err.message);
        assert.equal(readLog(f.log).length, 0);
        assert.equal(fs.existsSync(path.join(bare, ".codegraph")), false, "nothing was created");
      });

      test("CODEGRAPH_NO_INDEX for an empty or non-SQLite database file", async () => {
        const broken = makeWorkspace({ index: false });
        fs.mkdirSync(path.join(broken, ".codegraph"));
        fs.writeFileSync(path.join(broken, ".codegraph", "codegraph.db"), "hello");
        await rejectsWith(explore("q", broken), "CODEGRAPH_NO_INDEX");
      });

      test("CODEGRAPH_NO_INDEX when the CLI itself says the index is unusable", async () => {
        await fake({ FAKE_CG_MODE: "noindex" }, () => rejectsWith(explore("q", ws), "CODEGRAPH_NO_INDEX"));
      });

      test("an index in a parent directory does not count", async () => {
        const child = path.join(ws, "sub");
        fs.mkdirSync(child, { recursive: true });
        await rejectsWith(explore("q", child), "CODEGRAPH_NO_INDEX");
      });

      for (const [label, request] of [
        ["empty", ""],
        ["whitespace", " \n\t "],
        ["a NUL byte", "a\u0000b"],
        ["over 10,000 characters", "x".repeat(10001)],
        ["not a string", 42],
      ]) {
        test(`CODEGRAPH_INVALID_REQUEST for ${label}, and the CLI never runs`, async () => {
          const f = files();
          await fake({ FAKE_CG_LOG: f.log }, () => rejectsWith(explore(request, ws), "CODEGRAPH_INVALID_REQUEST"));
          assert.equal(readLog(f.log).length, 0);
        });
      }

      test("CODEGRAPH_INVALID_OPTIONS for options and signals of the wrong shape, and the CLI never runs", async () => {
        const f = files();
        const bad = [
          [null, 42],
          [null, { timeoutMs: "400" }],
          [null, { timeoutMs: -1 }],
          [null, { timeoutMs: 0 }],
          [null, { timeoutMs: Number.NaN }],
          [null, { timeoutMs: 2 ** 40 }],
          [null, { onProgress: "not a function" }],
          [null, { onQueue: "not a function" }],
          [null, { onQueue: 1 }],
          [{ not: "a signal" }, null],
          ["signal", null],
        ];
        await fake({ FAKE_CG_LOG: f.log }, async () => {
          for (const [signal, options] of bad) {
            const err = await rejectsWith(explore("q", ws, signal, options), "CODEGRAPH_INVALID_OPTIONS");
            assert.match(err.message, /timeoutMs|onProgress|onQueue|options|AbortSignal/);
          }
        });
        assert.equal(readLog(f.log).length, 0);
        // Absent options are fine, in any spelling.
        for (const options of [undefined, null, {}, { timeoutMs: undefined, onProgress: null, onQueue: null }]) {
          assert.equal((await explore("q", ws, undefined, options)).details.exitCode, 0);
        }
      });

      test("CODEGRAPH_WORKSPACE for a missing, relative or non-directory workspace", async () => {
        const file = path.join(ws, "main.ts");
        for (const cwd of [path.join(ws, "nope"), "relative/dir", file, "", undefined]) {
          await rejectsWith(explore("q", cwd), "CODEGRAPH_WORKSPACE");
        }
      });
    });

    describe("exit status", () => {
      test("CODEGRAPH_EXIT keeps only the last 4 KB of a long stderr", async () => {
        const err = await fake({ FAKE_CG_MODE: "exit", FAKE_CG_COUNT: "20000", FAKE_CG_EXIT: "3" }, () =>
          rejectsWith(explore("q", ws), "CODEGRAPH_EXIT"),
        );
        assert.equal(err.details.exitCode, 3);
        assert.ok(err.details.stderrTail.endsWith("TAIL-END"));
        assert.ok(Buffer.byteLength(err.details.stderrTail) <= 4096);
        assert.ok(err.message.includes("TAIL-END"));
        assert.ok(Buffer.byteLength(err.message) < 4096 + 600, "the message stays bounded");
        assert.match(err.message, /exited with code 3/);
        // The words name the command that ran, and the one to run again.
        assert.ok(err.message.startsWith(`CODEGRAPH_EXIT: codegraph ${tool.subcommand} exited`), err.message);
        assert.ok(err.remediation.includes(`\`codegraph ${tool.subcommand}\``), err.remediation);
      });

      test("CODEGRAPH_EXIT shows stdout's start when stderr is empty", async () => {
        const err = await fake(
          { FAKE_CG_MODE: "exit", FAKE_CG_COUNT: "0", FAKE_CG_STDOUT: "Error: query must be a non-empty string\n" },
          () => rejectsWith(explore("q", ws), "CODEGRAPH_EXIT"),
        );
        assert.match(err.message, /Error: query must be a non-empty string/);
      });
    });

    describe("cancellation and timeout", () => {
      const stops = {
        hang: "abort kills the CLI and its grandchild and rejects with CODEGRAPH_CANCELLED",
        "ignore-term": "SIGTERM-ignoring processes are SIGKILLed",
      };
      for (const [mode, title] of Object.entries(stops)) {
        test(title, async () => {
          const f = files();
          const ac = new AbortController();
          await fake({ FAKE_CG_MODE: mode, FAKE_CG_PIDS: f.pids }, async () => {
            const pending = explore("q", ws, ac.signal);
            const pids = await waitFor(() => readJsonFile(f.pids), { what: "the fake to start" });
            assert.ok(isAlive(pids.self) && isAlive(pids.grandchild));
            ac.abort();
            await rejectsWith(pending, "CODEGRAPH_CANCELLED");
            await processesDie([pids.self, pids.grandchild]);
          });
        });
      }

      test("a signal already aborted rejects at once and runs nothing", async () => {
        const f = files();
        const ac = new AbortController();
        ac.abort();
        const err = await fake({ FAKE_CG_LOG: f.log }, () =>
          rejectsWith(explore("q", ws, ac.signal), "CODEGRAPH_CANCELLED"),
        );
        assert.equal(readLog(f.log).length, 0);
        assert.ok(err.message.startsWith("CODEGRAPH_CANCELLED: the explore was cancelled"), err.message);
      });

      test("one signal can serve several calls, and its own listeners keep working", async () => {
        const ac = new AbortController();
        let seen = 0;
        ac.signal.addEventListener("abort", () => {
          seen += 1;
        });
        ac.signal.onabort = () => {
          seen += 1;
        };
        await explore("first", ws, ac.signal);
        await explore("second", ws, ac.signal);
        ac.abort();
        assert.equal(seen, 2);
      });

      test("CODEGRAPH_TIMEOUT after the configured time, with the tree killed", async () => {
        const f = files();
        await fake({ FAKE_CG_MODE: "hang", FAKE_CG_PIDS: f.pids }, async () => {
          const started = Date.now();
          const err = await rejectsWith(explore("q", ws, null, { timeoutMs: 400 }), "CODEGRAPH_TIMEOUT");
          assert.ok(Date.now() - started >= 400);
          assert.equal(err.details.timeoutMs, 400);
          assert.ok(
            err.message.startsWith(`CODEGRAPH_TIMEOUT: codegraph ${tool.subcommand} did not finish`),
            err.message,
          );
          const pids = readJsonFile(f.pids);
          assert.ok(pids, "the fake had started");
          await processesDie([pids.self, pids.grandchild]);
        });
      });

      test("a grandchild holding stdout open does not hang the call, and is killed", async () => {
        const f = files();
        await fake(
          { FAKE_CG_MODE: "leave-grandchild", FAKE_CG_PIDS: f.pids, FAKE_CG_GRANDCHILD_STDIO: "inherit" },
          async () => {
            const result = await explore("q", ws, null, { timeoutMs: 10000 });
            assert.equal(result.text, "answer before exit\n");
            const pids = readJsonFile(f.pids);
            await processesDie([pids.grandchild], "the grandchild to die");
          },
        );
      });
    });

    describe("output limits", () => {
      test(`truncates at ${caps.maxLines} lines with a visible marker, the marker within the caps`, async () => {
        const result = await fake({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" }, () => explore("q", ws));
        const d = result.details;
        const kept = caps.maxLines - 2;
        assert.equal(d.truncated, true);
        assert.equal(d.truncatedBy, "lines");
        // The marker's blank line and its own line count against the cap.
        assert.equal(d.keptLines, kept);
        assert.equal(d.totalLines, 3000);
        assert.equal(result.text.split("\n").length, caps.maxLines, "the whole text, marker included, is the cap");
        const [body, marker] = splitKept(result);
        assert.equal(body, `${Array.from({ length: kept }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
        assert.match(marker, new RegExp(`^\\n\\[Output truncated by lines: showing ${kept} of 3000 lines`));
        assert.match(marker, /More output existed/);
      });

      test(`truncates at ${caps.maxBytes / 1024} KB on a UTF-8 character boundary, the marker within the caps`, async () => {
        const result = await fake({ FAKE_CG_MODE: "chars", FAKE_CG_CHAR: "€", FAKE_CG_COUNT: "30000" }, () =>
          explore("q", ws),
        );
        const d = result.details;
        assert.equal(d.truncated, true);
        assert.equal(d.truncatedBy, "bytes");
        assert.ok(
          Buffer.byteLength(result.text) <= caps.maxBytes,
          `the whole text is ${Buffer.byteLength(result.text)} bytes`,
        );
        assert.ok(d.keptBytes > caps.maxBytes - 1024, `kept ${d.keptBytes} bytes`);
        assert.equal(d.totalBytes, 90000);
        const [body, marker] = splitKept(result);
        assert.equal(Buffer.byteLength(body), d.keptBytes);
        assert.match(body, /^€+$/u, "only whole characters, no replacement characters");
        assert.match(marker, /^\n\n\[Output truncated by bytes: showing 1 of 1 lines \(\d+ of 90000 bytes\)/);
      });

      for (const bytes of [caps.maxBytes + 1, caps.maxBytes + 2, caps.maxBytes + 3]) {
        test(`${bytes} bytes: truncated, and the answer names its full-output file`, async () => {
          const result = await fake({ FAKE_CG_MODE: "chars", FAKE_CG_CHAR: "z", FAKE_CG_COUNT: String(bytes) }, () =>
            explore("q", ws),
          );
          assert.equal(result.details.truncated, true);
          assert.ok(Buffer.byteLength(result.text) <= caps.maxBytes);
          const file = result.details.fullOutputPath;
          assert.ok(file, "a full-output file");
          assert.ok(result.text.includes(file), "the marker names it");
          assert.equal(fs.readFileSync(file, "utf8"), "z".repeat(bytes));
        });
      }

      test("output under both limits is returned whole", async () => {
        const result = await fake({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: String(caps.maxLines - 1) }, () =>
          explore("q", ws),
        );
        assert.equal(result.details.truncated, false);
        assert.doesNotMatch(result.text, /Output truncated/);
      });
    });
  });
}
