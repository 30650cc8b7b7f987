// The fault catalogue: explore() against a CLI, a request, a workspace and a host that misbehave.
// Each fault asserts the stable code (or the normal result), that no process is left behind and
// that nothing the CLI reported is lost. Fakes are small scripts generated per test into temp
// dirs; every process they start inherits FAULTS_MARK, so /proc tells what is still running.
// Tests marked `todo` document a real gap in the runner; they assert the behaviour it should have.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { getEventListeners } from "node:events";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import {
  assertNothingLeft,
  cleanup,
  expectError,
  expectResult,
  exploreWith,
  fakeCli,
  procStat,
  ROOT_USER,
  runNode,
  saved,
  useFaultsSuite,
  VERSION,
} from "./helpers/faults.mjs";
import { isAlive, makeWorkspace, processesDie, root, tempDir, waitFor, withEnv } from "./helpers/index.mjs";

const require = createRequire(import.meta.url);
const { explore, releaseFullOutputs } = require("../index.js");

const suite = useFaultsSuite();
let ws;
let emptyDir;
before(() => {
  ({ ws, emptyDir } = suite);
});

describe("the CLI misbehaves", () => {
  test("exits non-zero with no output: CODEGRAPH_EXIT with the exit code", async () => {
    const fake = fakeCli("exit 7", { sh: true });
    const err = expectError(await exploreWith(fake.file, "q", ws), "CODEGRAPH_EXIT");
    assert.equal(err.details.exitCode, 7);
    assert.equal(err.details.signal, null);
    assert.equal(err.details.stderrTail, "");
    assert.match(err.message, /exited with code 7/);
    assert.match(err.message, /\nstderr: \(empty\)$/);
    assert.equal(err.details.executable, fake.file);
    await assertNothingLeft();
  });

  for (const [name, number] of [
    ["SIGSEGV", 11],
    ["SIGKILL", 9],
  ]) {
    test(`dies by ${name}: CODEGRAPH_EXIT with details.signal and the signal named`, async () => {
      // What it said before dying must survive the crash.
      const fake = fakeCli(`ulimit -c 0\necho "last words before the crash" >&2\nkill -${name.slice(3)} $$`, {
        sh: true,
      });
      const err = expectError(await exploreWith(fake.file, "q", ws), "CODEGRAPH_EXIT");
      assert.equal(err.details.signal, number);
      assert.equal(err.details.exitCode, null);
      assert.equal(err.details.stderrTail, "last words before the crash\n");
      assert.match(err.message, /\nstderr \(last 4 KB\):\nlast words before the crash$/);
      // The summary line (the one the transcript shows) names the signal, not only its number.
      const summary = err.message.split("\n")[0];
      assert.match(summary, new RegExp(`\\b${name}\\b`), `the summary names ${name}: ${summary}`);
      await assertNothingLeft();
    });
  }

  test("prints invalid UTF-8 and NUL bytes: a normal result with U+FFFD, NUL dropped, the rest intact", async () => {
    const raw = Buffer.concat([
      Buffer.from("before"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(" middle\0NUL after"),
      Buffer.from([0xc3, 0x28]),
      Buffer.from("end\n\u2713 last line\n"),
    ]);
    const fake = fakeCli(`process.stdout.write(Buffer.from(${JSON.stringify(raw.toString("base64"))}, "base64"));`);
    const result = expectResult(await exploreWith(fake.file, "q", ws));
    assert.equal(result.text, "before\uFFFD\uFFFD middleNUL after\uFFFD(end\n\u2713 last line\n");
    assert.ok(!result.text.includes("\0"));
    assert.equal(result.details.exitCode, 0);
    assert.equal(result.details.totalBytes, raw.length);
    assert.equal(result.details.truncated, false);
    await assertNothingLeft();
  });

  const HUNDRED_MB = 100 * 1024 * 1024;
  test("prints 100 MB of stderr then fails: a tail of at most 4 KB ending with the last bytes, promptly", async () => {
    const fake = fakeCli(`head -c ${HUNDRED_MB} /dev/zero | tr '\\0' x >&2\nprintf 'END-OF-STDERR' >&2\nexit 5`, {
      sh: true,
    });
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 25000 });
    const err = expectError(outcome, "CODEGRAPH_EXIT");
    assert.ok(outcome.ms < 15000, `took ${outcome.ms} ms`);
    assert.equal(err.details.exitCode, 5);
    const tail = err.details.stderrTail;
    assert.ok(Buffer.byteLength(tail) <= 4096, `tail is ${Buffer.byteLength(tail)} bytes`);
    assert.ok(tail.length > 4000, "the tail is the last ~4 KB, not a fragment");
    assert.match(tail, /^x+END-OF-STDERR$/);
    assert.ok(Buffer.byteLength(err.message) < 4096 + 600, "the message stays bounded");
    assert.ok(err.message.endsWith("END-OF-STDERR"));
    await assertNothingLeft();
  });

  test("prints 100 MB of stderr but succeeds: the stdout answer is kept whole", async () => {
    const fake = fakeCli(
      `echo "answer part 1"\nhead -c ${HUNDRED_MB} /dev/zero | tr '\\0' y >&2\necho "answer part 2"\nexit 0`,
      { sh: true },
    );
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 25000 });
    const result = expectResult(outcome);
    assert.equal(result.text, "answer part 1\nanswer part 2\n");
    assert.ok(outcome.ms < 15000, `took ${outcome.ms} ms`);
    await assertNothingLeft();
  });

  test("prints stderr forever: bounded by the timeout (CODEGRAPH_TIMEOUT), writer stopped", async () => {
    const fake = fakeCli(`exec yes endless-stderr >&2`, { sh: true });
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 1000 });
    expectError(outcome, "CODEGRAPH_TIMEOUT");
    assert.ok(outcome.ms >= 1000 && outcome.ms < 5000, `took ${outcome.ms} ms`);
    await assertNothingLeft();
  });

  test("closes stdout but keeps running: CODEGRAPH_TIMEOUT with a short timeoutMs, process stopped", async () => {
    const fake = fakeCli(`fs.closeSync(1);\nreport({ self: process.pid });\nsetInterval(() => {}, 1000);`);
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 800 });
    const err = expectError(outcome, "CODEGRAPH_TIMEOUT");
    assert.equal(err.details.timeoutMs, 800);
    assert.ok(outcome.ms >= 800 && outcome.ms < 5000, `took ${outcome.ms} ms`);
    const p = fake.readPids();
    assert.ok(p, "the fake had started");
    await waitFor(() => !isAlive(p.self), { timeoutMs: 2000, what: "the CLI to die" });
    await assertNothingLeft();
  });

  test("closes stdout and stderr but keeps running: CODEGRAPH_TIMEOUT, process stopped", async () => {
    const fake = fakeCli(
      `report({ self: process.pid });\nfs.closeSync(1);\nfs.closeSync(2);\nsetInterval(() => {}, 1000);`,
    );
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 800 });
    expectError(outcome, "CODEGRAPH_TIMEOUT");
    assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
    const p = fake.readPids();
    await waitFor(() => !isAlive(p.self), { timeoutMs: 2000, what: "the CLI to die" });
    await assertNothingLeft();
  });

  test("a run stopped by the timeout keeps what the CLI said on stderr", async () => {
    // Nothing reported is lost: a CLI stuck after explaining why (a lock, a prompt) should leave
    // that explanation in the error, as CODEGRAPH_EXIT does.
    const fake = fakeCli(
      `process.stderr.write("stuck: waiting for the index lock\\n");\nprocess.stdout.write("partial answer\\n");\nreport({ self: process.pid });\nsetInterval(() => {}, 1000);`,
    );
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 800 });
    const err = expectError(outcome, "CODEGRAPH_TIMEOUT");
    await assertNothingLeft();
    assert.match(String(err.details.stderrTail ?? ""), /stuck: waiting for the index lock/, "details.stderrTail");
    assert.match(err.message, /stuck: waiting for the index lock/, "the message carries the stderr tail");
  });

  test("exits but leaves a grandchild holding stdout open: the answer, promptly, grandchild killed", async () => {
    const fake = fakeCli(
      `sleep 1000 &\necho "{\\"self\\": $$, \\"grandchild\\": $!}" > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"\necho "answer before exit"\nexit 0`,
      { sh: true },
    );
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
    const result = expectResult(outcome);
    assert.equal(result.text, "answer before exit\n");
    assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
    const p = fake.readPids();
    await processesDie([p.grandchild], "the grandchild to die");
    await assertNothingLeft();
  });

  /** A fake that starts a daemon in a new session (ignoring SIGTERM), waits until it runs, answers, exits. */
  function daemonFake(stdio) {
    const fake = fakeCli(`
const daemonPid = PIDS + ".daemon";
const code = [
  "process.on('SIGTERM', () => {});",
  "require('fs').writeFileSync(" + JSON.stringify(daemonPid + ".tmp") + ", String(process.pid));",
  "require('fs').renameSync(" + JSON.stringify(daemonPid + ".tmp") + ", " + JSON.stringify(daemonPid) + ");",
  "setInterval(() => {}, 1000);",
].join("\\n");
const d = spawn(process.execPath, ["-e", code], { detached: true, stdio: ${JSON.stringify(stdio)} });
d.unref();
waitFile(daemonPid, () => {
  report({ self: process.pid, daemon: Number(fs.readFileSync(daemonPid, "utf8")) });
  process.stdout.write("answer from a daemonising CLI\\n");
  process.exit(0);
});`);
    return fake;
  }

  test("forks a daemon (new session, ignores SIGTERM): the call settles with the answer and the CLI is reaped", async (t) => {
    const fake = daemonFake("ignore");
    let p;
    try {
      const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
      const result = expectResult(outcome);
      assert.equal(result.text, "answer from a daemonising CLI\n");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      p = fake.readPids();
      assert.ok(!isAlive(p.self), "the CLI itself is gone");
      // The documented limit (README, "Nothing left running"): a daemon in its own session is
      // outside the process group and the reaper's reach; only a cgroup could follow it.
      const st = procStat(p.daemon);
      t.diagnostic(
        `daemon ${p.daemon} after the call: ${st && st.state !== "Z" ? "still running (escaped the group)" : "gone"}`,
      );
    } finally {
      cleanup(p?.daemon);
    }
    await assertNothingLeft();
  });

  test("forks a daemon that keeps stdout open (new session): the call still settles promptly", async (t) => {
    const fake = daemonFake(["ignore", "inherit", "inherit"]);
    let p;
    try {
      const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
      const result = expectResult(outcome);
      assert.equal(result.text, "answer from a daemonising CLI\n");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms (must not wait for the daemon or the timeout)`);
      p = fake.readPids();
      t.diagnostic(`daemon ${p.daemon} after the call: ${isAlive(p.daemon) ? "still running" : "gone"}`);
    } finally {
      cleanup(p?.daemon);
    }
    await assertNothingLeft();
  });

  test("floods stdout without end: a truncated answer, the CLI stopped, the full file capped at 16 MiB", async () => {
    const fake = fakeCli(`exec yes "flood line of the fault catalogue"`, { sh: true });
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
    const result = expectResult(outcome);
    const d = result.details;
    assert.equal(d.truncated, true);
    assert.equal(d.totalsExact, false, "the CLI was stopped: totals are lower bounds");
    assert.equal(d.exitCode, -1, "stopped by pi-codegraph, not the CLI's own exit");
    assert.ok(d.totalBytes > 16 * 1024 * 1024);
    assert.ok(d.keptBytes <= 51200 && d.keptLines <= 2000);
    assert.match(result.text, /showing \d+ of at least \d+ lines/);
    assert.match(result.text, /itself cut at 16 MiB/);
    assert.equal(fs.statSync(d.fullOutputPath).size, 16 * 1024 * 1024);
    assert.ok(outcome.ms < 10000, `settled in ${outcome.ms} ms`);
    releaseFullOutputs();
    await assertNothingLeft();
  });

  test("starts slowly (1 s), then answers: a normal result", async () => {
    const fake = fakeCli(`sleep 1\necho "slow but sure"`, { sh: true });
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
    const result = expectResult(outcome);
    assert.equal(result.text, "slow but sure\n");
    assert.ok(result.details.durationMs >= 1000, `durationMs ${result.details.durationMs}`);
    assert.equal(result.details.cliVersion, VERSION);
    await assertNothingLeft();
  });

  test("is not executable: CODEGRAPH_SPAWN via PI_CODEGRAPH_BIN; skipped on PATH (CODEGRAPH_NOT_FOUND)", async () => {
    const fake = fakeCli(`echo "must never run"`, { sh: true });
    fs.chmodSync(fake.file, 0o644);
    const err = expectError(await exploreWith(fake.file, "q", ws), "CODEGRAPH_SPAWN");
    assert.match(err.message, /not executable|permission denied/i);
    // On PATH a non-executable file is passed over, as a shell's search does.
    expectError(await exploreWith(undefined, "q", ws, null, null, { PATH: fake.dir }), "CODEGRAPH_NOT_FOUND");
    await assertNothingLeft();
  });

  test("is executable but not a program (exec format error): CODEGRAPH_SPAWN", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const file = path.join(dir, "codegraph");
    fs.writeFileSync(file, Buffer.from([0x7f, 0x00, 0x01, 0x02, 0x03]), { mode: 0o755 });
    expectError(await exploreWith(file, "q", ws), "CODEGRAPH_SPAWN");
    await assertNothingLeft();
  });

  test("names an interpreter that does not exist: CODEGRAPH_NOT_FOUND", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const file = path.join(dir, "codegraph");
    fs.writeFileSync(file, "#!/nonexistent/interpreter\n", { mode: 0o755 });
    const err = expectError(await exploreWith(file, "q", ws), "CODEGRAPH_NOT_FOUND");
    assert.match(err.message, /interpreter/);
  });

  test("is a directory: CODEGRAPH_NOT_FOUND on PATH and via PI_CODEGRAPH_BIN (not a file)", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    fs.mkdirSync(path.join(dir, "codegraph"), { mode: 0o755 });
    expectError(await exploreWith(undefined, "q", ws, null, null, { PATH: dir }), "CODEGRAPH_NOT_FOUND");
    const err = expectError(await exploreWith(path.join(dir, "codegraph"), "q", ws), "CODEGRAPH_NOT_FOUND");
    assert.match(err.message, /not a file/);
  });

  test("is a broken symlink: CODEGRAPH_NOT_FOUND on PATH and via PI_CODEGRAPH_BIN", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const link = path.join(dir, "codegraph");
    fs.symlinkSync(path.join(dir, "gone", "codegraph"), link);
    expectError(await exploreWith(undefined, "q", ws, null, null, { PATH: dir }), "CODEGRAPH_NOT_FOUND");
    expectError(await exploreWith(link, "q", ws), "CODEGRAPH_NOT_FOUND");
  });
});

// ---------------------------------------------------------------------------------------------

describe("the request", () => {
  let recorder;
  let log;
  before(() => {
    // Records the exact argv bytes it received (from /proc/self/cmdline) and answers.
    recorder = fakeCli(`
const raw = fs.readFileSync("/proc/self/cmdline");
fs.appendFileSync(PIDS + ".log", JSON.stringify({ argv: process.argv.slice(2), cmdline: raw.toString("base64") }) + "\\n");
process.stdout.write("recorded\\n");`);
    log = `${recorder.pids}.log`;
  });

  const calls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];

  /** Runs one request and returns the argv bytes the CLI saw after `explore --`. */
  async function passed(request) {
    const before = calls().length;
    expectResult(await exploreWith(recorder.file, request, ws));
    const all = calls();
    assert.equal(all.length, before + 1, "the CLI ran once");
    const parts = Buffer.from(all.at(-1).cmdline, "base64").toString("latin1").split("\0");
    // cmdline: node, script, explore, --, request, "" (trailing NUL)
    const after = parts.slice(2, -1).map((p) => Buffer.from(p, "latin1"));
    return { argv: all.at(-1).argv, raw: after };
  }

  function assertVerbatim(seen, request) {
    assert.equal(seen.raw.length, 3, `exactly three arguments: ${seen.argv.map((a) => JSON.stringify(a)).join(" ")}`);
    assert.equal(seen.raw[0].toString(), "explore");
    assert.equal(seen.raw[1].toString(), "--");
    assert.ok(seen.raw[2].equals(Buffer.from(request, "utf8")), `byte-identical: ${JSON.stringify(request)}`);
    assert.deepEqual(seen.argv, ["explore", "--", request]);
  }

  for (const [label, request] of [
    ["empty", ""],
    ["whitespace", " \t\n\r\u00a0\u2003 "],
    ["NUL alone", "\0"],
    ["NUL inside", "what calls\0main"],
    ["1 MB", "x".repeat(1024 * 1024)],
    ["1 MB of multibyte", "é".repeat(512 * 1024)],
  ]) {
    test(`${label}: CODEGRAPH_INVALID_REQUEST, bounded message, the CLI never runs`, async () => {
      const before = calls().length;
      const err = expectError(await exploreWith(recorder.file, request, ws), "CODEGRAPH_INVALID_REQUEST");
      assert.ok(Buffer.byteLength(err.message) < 1024, `message is ${Buffer.byteLength(err.message)} bytes`);
      assert.equal(calls().length, before, "the CLI never ran");
      await assertNothingLeft();
    });
  }

  test("exactly 10,000 multibyte characters still pass, verbatim", async () => {
    const request = "é".repeat(10000);
    assertVerbatim(await passed(request), request);
  });

  test("every shell metacharacter, alone and together, is one verbatim argv element", async () => {
    const sentinel = path.join(tempDir("pi-codegraph-faults-sentinel-"), "pwned");
    const together = [
      `\`touch ${sentinel}\``,
      `$(touch ${sentinel})`,
      `; touch ${sentinel};`,
      `&& touch ${sentinel} || touch ${sentinel} &`,
      `| tee ${sentinel}`,
      `> ${sentinel} >> ${sentinel} 2>&1 < /etc/passwd <<EOF`,
      "${IFS}${HOME}$HOME$0$1$$$?$!$@$*",
      "* ? [a-z] {a,b} ~ ~root !! !$ # % ^ = + , .",
      `'single' "double" \\backslash \\' \\"`,
      "(sub) {group;} $((1+1)) <(echo) >(cat)",
      "newline\nand\ttab and\rreturn and\u000bvtab",
    ].join(" ");
    assertVerbatim(await passed(together), together);
    for (const c of "`$;&|<>(){}[]*?~!#'\"\\\n\t\r %^=+,:@") {
      const request = `a${c}b`;
      assertVerbatim(await passed(request), request);
    }
    assert.equal(fs.existsSync(sentinel), false, "no shell ever ran");
    await assertNothingLeft();
  });

  for (const [label, request] of [
    ["RTL override", "where is \u202Eexe.txt\u202C defined"],
    ["Arabic and Hebrew", "ما الذي يستدعي main؟ מי קורא ל-checkout?"],
    ["combining marks", "e\u0301\u0302\u0303 Z\u0324\u0354\u0367\u0311a\u0308\u0356"],
    ["NFD kept NFD (no normalisation)", "cafe\u0301 vs caf\u00e9"],
    ["ZWJ emoji, BOM, zero-width", "\uFEFF👩‍👩‍👧‍👦 zero\u200Bwidth \u2066isolate\u2069"],
  ]) {
    test(`${label}: byte-identical argv element`, async () => {
      assertVerbatim(await passed(request), request);
    });
  }

  test("a lone UTF-16 surrogate: settles (rejected, or passed as well-formed UTF-8), never a crash", async (t) => {
    const outcome = await exploreWith(recorder.file, "a\uD800b", ws);
    t.diagnostic(outcome.error ? `rejected: ${outcome.error.code}` : "passed to the CLI as U+FFFD");
    if (outcome.error) {
      assertStableError(outcome.error, "CODEGRAPH_INVALID_REQUEST");
    } else {
      const last = calls().at(-1);
      const raw = Buffer.from(last.cmdline, "base64").toString("latin1").split("\0")[4];
      assert.ok(Buffer.from(raw, "latin1").equals(Buffer.from("a\uFFFDb")), "well-formed UTF-8 with U+FFFD");
    }
  });

  for (const request of [
    "--version",
    "-h",
    "--help",
    "--",
    "-",
    "---x",
    "-p /etc",
    "--path=/etc --max-files 1",
    "-rf /",
  ]) {
    test(`leading dashes ${JSON.stringify(request)}: data after --, never an option`, async () => {
      assertVerbatim(await passed(request), request);
    });
  }
});

// ---------------------------------------------------------------------------------------------

describe("the workspace", () => {
  test("deleted while the CLI runs: the call settles with the answer, no hang", async (t) => {
    const doomed = makeWorkspace();
    const fake = fakeCli(`
report({ self: process.pid });
waitFile(${JSON.stringify(`${doomed}.deleted`)}, () => {
  let cwd;
  try { cwd = process.cwd(); } catch (e) { cwd = e.code; }
  process.stdout.write("answer after deletion (cwd: " + cwd + ")\\n");
});`);
    const pending = exploreWith(fake.file, "q", doomed, null, { timeoutMs: 15000 });
    const p = await waitFor(() => fake.readPids(), { what: "the fake to start" });
    fs.rmSync(doomed, { recursive: true, force: true });
    fs.writeFileSync(`${doomed}.deleted`, "");
    const outcome = await pending;
    const result = expectResult(outcome);
    assert.match(result.text, /^answer after deletion \(cwd: .*\)\n$/);
    t.diagnostic(result.text.trim());
    assert.ok(outcome.ms < 10000, `took ${outcome.ms} ms`);
    assert.ok(!isAlive(p.self));
    await assertNothingLeft();
  });

  test("deleted while a hanging CLI runs, then aborted: CODEGRAPH_CANCELLED, tree stopped", async () => {
    const doomed = makeWorkspace();
    const fake = fakeCli(
      `sleep 1000 &\necho "{\\"self\\": $$, \\"grandchild\\": $!}" > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"\nwait`,
      {
        sh: true,
      },
    );
    const ac = new AbortController();
    const pending = exploreWith(fake.file, "q", doomed, ac.signal, { timeoutMs: 15000 });
    const p = await waitFor(() => fake.readPids(), { what: "the fake to start" });
    fs.rmSync(doomed, { recursive: true, force: true });
    ac.abort();
    expectError(await pending, "CODEGRAPH_CANCELLED");
    await processesDie([p.self, p.grandchild]);
    await assertNothingLeft();
  });

  test("a symlink to a workspace: works, the CLI runs in the real directory", async () => {
    const link = path.join(tempDir("pi-codegraph-faults-link-"), "ws-link");
    fs.symlinkSync(ws, link);
    const fake = fakeCli(`process.stdout.write(JSON.stringify({ cwd: process.cwd() }) + "\\n");`);
    const result = expectResult(await exploreWith(fake.file, "q", link));
    assert.equal(JSON.parse(result.text).cwd, ws);
    assert.ok([link, ws].includes(result.details.cwd), result.details.cwd);
    await assertNothingLeft();
  });

  test("unreadable (chmod 000) as root: root bypasses permission checks, so the explore still answers", {
    skip: !ROOT_USER && "not running as root",
  }, async () => {
    const locked = makeWorkspace();
    fs.chmodSync(locked, 0o000);
    try {
      const fake = fakeCli(`process.stdout.write("root reads anything\\n");`);
      const result = expectResult(await exploreWith(fake.file, "q", locked));
      assert.equal(result.text, "root reads anything\n");
    } finally {
      fs.chmodSync(locked, 0o755);
    }
    await assertNothingLeft();
  });

  test("unreadable (chmod 000) for an unprivileged user: CODEGRAPH_WORKSPACE, not a missing index", async () => {
    // A world-traversable parent holding a workspace its owner locked, explored by `nobody`
    // (uid 65534) when this suite runs as root, else by the current user.
    const parent = tempDir("pi-codegraph-faults-perm-");
    fs.chmodSync(parent, 0o755);
    const locked = path.join(parent, "ws");
    fs.mkdirSync(path.join(locked, ".codegraph"), { recursive: true });
    fs.writeFileSync(
      path.join(locked, ".codegraph", "codegraph.db"),
      Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(100)]),
    );
    fs.chmodSync(locked, 0o000);
    const fake = fakeCli(`process.stdout.write("should not be reached\\n");`);
    fs.chmodSync(fake.dir, 0o755);
    const script = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("q", ${JSON.stringify(locked)}).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
    try {
      const r = await runNode(["-e", script], {
        env: { ...process.env, PI_CODEGRAPH_BIN: fake.file, HOME: parent },
        ...(ROOT_USER ? { uid: 65534, gid: 65534 } : {}),
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.code, "CODEGRAPH_WORKSPACE", out.message ?? out.text);
      assert.doesNotMatch(out.message, /does not exist/, "an unreadable workspace is not a missing one");
    } finally {
      fs.chmodSync(locked, 0o755);
    }
    await assertNothingLeft();
  });

  test("a file instead of a directory (also through a symlink): CODEGRAPH_WORKSPACE", async () => {
    const fake = fakeCli(`process.stdout.write("must not run\\n");`);
    const file = path.join(ws, "main.ts");
    const link = path.join(tempDir("pi-codegraph-faults-link-"), "file-link");
    fs.symlinkSync(file, link);
    for (const cwd of [file, link, "/dev/null"]) {
      const err = expectError(await exploreWith(fake.file, "q", cwd), "CODEGRAPH_WORKSPACE");
      assert.match(err.message, /not a directory/);
    }
    const dangling = path.join(tempDir("pi-codegraph-faults-link-"), "dangling");
    fs.symlinkSync(path.join(emptyDir, "gone"), dangling);
    expectError(await exploreWith(fake.file, "q", dangling), "CODEGRAPH_WORKSPACE");
    await assertNothingLeft();
  });

  test("a `codegraph` and `codegraph.cmd` planted inside are never run, even with '.' or '' in PATH", async () => {
    const planted = makeWorkspace();
    const ran = path.join(tempDir("pi-codegraph-faults-sentinel-"), "planted-ran");
    const evil = `#!/bin/sh\necho "$0" >> ${JSON.stringify(ran)}\necho planted\n`;
    for (const rel of ["codegraph", "codegraph.cmd", "bin/codegraph", "node_modules/.bin/codegraph"]) {
      fs.mkdirSync(path.dirname(path.join(planted, rel)), { recursive: true });
      fs.writeFileSync(path.join(planted, rel), evil, { mode: 0o755 });
    }
    const real = fakeCli(`process.stdout.write("the real one\\n");`);
    const cwd = process.cwd();
    process.chdir(planted); // as Pi would be: started in the repository
    try {
      for (const PATH of [".", "", ":", ".::", "./", "bin", "node_modules/.bin", "./node_modules/.bin:."]) {
        const outcome = await exploreWith(undefined, "q", planted, null, null, { PATH });
        expectError(outcome, "CODEGRAPH_NOT_FOUND");
      }
      // A relative entry first must not shadow the absolute one after it.
      const result = expectResult(
        await exploreWith(undefined, "q", planted, null, null, { PATH: `.::bin:${real.dir}` }),
      );
      assert.equal(result.text, "the real one\n");
      assert.equal(result.details.executable, real.file);
    } finally {
      process.chdir(cwd);
    }
    assert.equal(fs.existsSync(ran) ? fs.readFileSync(ran, "utf8") : "", "", "a planted codegraph ran");
    await assertNothingLeft();
  });
});

// ---------------------------------------------------------------------------------------------

describe("the host", () => {
  /** Writes its pid to the file named by the request (so calls are told apart), then sleeps. */
  let sleeper;
  before(() => {
    sleeper = fakeCli(`echo $$ > "$3.tmp" && mv "$3.tmp" "$3"\nexec sleep 1000`, { sh: true });
  });
  let k = 0;
  const pidFile = () => {
    k += 1;
    return path.join(sleeper.dir, `call-${k}.pid`);
  };
  const readPid = (f) => (fs.existsSync(f) ? Number(fs.readFileSync(f, "utf8")) : null);

  test("50 aborts in a row, at every stage: all CODEGRAPH_CANCELLED, nothing left", async (t) => {
    const started = [0, 0, 0]; // per stage: calls whose CLI had written its pid
    for (let i = 0; i < 50; i += 1) {
      const f = pidFile();
      const ac = new AbortController();
      const pending = exploreWith(sleeper.file, f, ws, ac.signal, { timeoutMs: 15000 });
      const stage = i % 3;
      if (stage === 0)
        ac.abort(); // before the CLI can have started
      else if (stage === 1) await new Promise((r) => setImmediate(r)).then(() => ac.abort());
      else {
        await waitFor(() => readPid(f), { what: `call ${i} to start` });
        ac.abort();
      }
      const outcome = await pending;
      expectError(outcome, "CODEGRAPH_CANCELLED");
      assert.ok(outcome.ms < 5000, `call ${i} took ${outcome.ms} ms`);
      const pid = readPid(f);
      if (pid) started[stage] += 1;
      if (pid) await waitFor(() => !isAlive(pid), { timeoutMs: 2000, what: `call ${i}'s CLI to die` });
      assert.equal(getEventListeners(ac.signal, "abort").length, 0, "the abort listener was removed");
    }
    // Stage 2 waited for each CLI, so all 16 of them ran; stages 0 and 1 may or may not have.
    assert.equal(started[2], 16);
    t.diagnostic(`CLIs that had started when aborted, by stage (sync, next tick, running): ${started.join(", ")}`);
    await assertNothingLeft();
  });

  test("abort before start: CODEGRAPH_CANCELLED at once, nothing runs, no listener left", async () => {
    const ac = new AbortController();
    ac.abort();
    const f = pidFile();
    const outcome = await exploreWith(sleeper.file, f, ws, ac.signal);
    expectError(outcome, "CODEGRAPH_CANCELLED");
    assert.ok(outcome.ms < 1000);
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);
    assert.equal(fs.existsSync(f), false, "the CLI never started");
    await assertNothingLeft();
  });

  test("one AbortSignal reused for several calls, then aborted: finished calls unaffected, running ones cancelled", async () => {
    const echo = fakeCli(`process.stdout.write("done\\n");`);
    const ac = new AbortController();
    let own = 0;
    ac.signal.addEventListener("abort", () => {
      own += 1;
    });
    for (let i = 0; i < 3; i += 1) {
      assert.equal(expectResult(await exploreWith(echo.file, "q", ws, ac.signal)).text, "done\n");
    }
    assert.equal(getEventListeners(ac.signal, "abort").length, 1, "finished calls removed their listeners");
    const files = [pidFile(), pidFile(), pidFile()];
    const pending = withEnv({ PI_CODEGRAPH_BIN: sleeper.file }, async () =>
      files.map((f) =>
        explore(f, ws, ac.signal, { timeoutMs: 15000 }).then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
      ),
    );
    const running = await pending;
    const started = await waitFor(() => files.every(readPid) && files.map(readPid), { what: "three calls to start" });
    assert.equal(getEventListeners(ac.signal, "abort").length, 4);
    ac.abort();
    for (const outcome of await Promise.all(running)) expectError(outcome, "CODEGRAPH_CANCELLED");
    await waitFor(() => started.every((p) => !isAlive(p)), { timeoutMs: 2000, what: "all three CLIs to die" });
    assert.equal(own, 1, "the caller's own listener fired once");
    assert.equal(getEventListeners(ac.signal, "abort").length, 1, "only the caller's listener remains");
    // And the spent signal cancels any later call at once.
    expectError(await exploreWith(echo.file, "q", ws, ac.signal), "CODEGRAPH_CANCELLED");
    await assertNothingLeft();
  });

  test("a script whose only pending work is an explore waits for the answer", async () => {
    const slow = fakeCli(`sleep 0.5\necho "late answer"`, { sh: true });
    const script = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("q", ${JSON.stringify(ws)}).then(
      (r) => process.stdout.write("RESULT " + r.text), (e) => process.stdout.write("ERROR " + e.code));`;
    const r = await runNode(["-e", script], { env: { ...process.env, PI_CODEGRAPH_BIN: slow.file } });
    assert.equal(r.stdout, "RESULT late answer\n", r.stderr);
    await assertNothingLeft();
  });

  /** A child Node that starts an explore of a hanging CLI (with a grandchild) and reports its pids. */
  function hostScript(then) {
    const fake = fakeCli(
      `sleep 1000 &\necho "{\\"self\\": $$, \\"grandchild\\": $!}" > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"\nwait`,
      {
        sh: true,
      },
    );
    const script = `
const fs = require("node:fs");
require(${JSON.stringify(path.join(root, "index.js"))}).explore("q", ${JSON.stringify(ws)}).then(
  () => process.stdout.write("SETTLED\\n"), (e) => process.stdout.write("SETTLED " + e.code + "\\n"));
const t = setInterval(() => {
  if (!fs.existsSync(${JSON.stringify(fake.pids)})) return;
  clearInterval(t);
  process.stdout.write("RUNNING\\n");
  ${then}
}, 5);
setTimeout(() => process.exit(3), 10000);`;
    return { fake, script };
  }

  async function assertDiesWithHost(t, { fake }, r) {
    const p = fake.readPids();
    assert.ok(p, `the CLI had started (host stdout: ${r.stdout}, stderr: ${r.stderr})`);
    try {
      await waitFor(() => !isAlive(p.self) && !isAlive(p.grandchild), {
        timeoutMs: 3000,
        what: "the CLI tree to die with its host",
      }).catch((e) => {
        const state = (pid) => `${pid}: ${isAlive(pid) ? `alive, ppid ${procStat(pid)?.ppid}` : "gone"}`;
        t.diagnostic(`after the host ended: CLI ${state(p.self)}; grandchild ${state(p.grandchild)}`);
        throw e;
      });
    } finally {
      cleanup(p.self, p.grandchild);
    }
    await assertNothingLeft();
  }

  test("Node calls process.exit(0) while a call runs: the CLI tree dies with it", async (t) => {
    const host = hostScript("process.exit(0);");
    const r = await runNode(["-e", host.script], { env: { ...process.env, PI_CODEGRAPH_BIN: host.fake.file } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "RUNNING\n");
    await assertDiesWithHost(t, host, r);
  });

  test("Node is SIGKILLed while a call runs: the CLI tree dies with it where the OS allows", async (t) => {
    const host = hostScript("");
    const r = await runNode(["-e", host.script], {
      env: { ...process.env, PI_CODEGRAPH_BIN: host.fake.file },
      onStdout: (out, child) => out.includes("RUNNING") && child.kill("SIGKILL"),
    });
    assert.equal(r.signal, "SIGKILL");
    await assertDiesWithHost(t, host, r);
  });
});

// ---------------------------------------------------------------------------------------------

describe("the network", () => {
  const systemEnv = { ...process.env, PATH: saved.PATH };
  const strace = spawnSync("strace", ["-V"], { encoding: "utf8", env: systemEnv });
  const straceMissing =
    strace.error || strace.status !== 0 ? "strace is not installed (apt-get install -y strace)" : false;

  test("one explore opens no AF_INET/AF_INET6 socket (strace -f)", { skip: straceMissing }, async (t) => {
    const fake = fakeCli(`echo "offline answer"`, { sh: true });
    const trace = path.join(tempDir("pi-codegraph-faults-strace-"), "trace.txt");
    const script = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("q", ${JSON.stringify(ws)}).then(
      (r) => process.stdout.write("RESULT " + r.text), (e) => process.stdout.write("ERROR " + e.code + " " + e.message));`;
    const r = await runNode(["-f", "-qq", "-e", "trace=network,execve", "-o", trace, process.execPath, "-e", script], {
      command: "strace",
      env: { ...process.env, PATH: saved.PATH, PI_CODEGRAPH_BIN: fake.file },
      timeoutMs: 60000,
    });
    if (/PTRACE|Operation not permitted/i.test(r.stderr) && !fs.existsSync(trace)) {
      t.skip(`strace cannot trace here: ${r.stderr.split("\n")[0]}`);
      return;
    }
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "RESULT offline answer\n");
    const lines = fs.readFileSync(trace, "utf8").split("\n").filter(Boolean);
    assert.ok(
      lines.some((l) => l.includes(`execve("${fake.file}"`)),
      "the trace covers the CLI (execve of the fake)",
    );
    // What was seen, per process: syscall and the address family of the socket or address.
    const seen = new Map();
    for (const l of lines) {
      const m = l.match(/^(\d+)\s+(\w+)\((.*)$/);
      if (!m || m[2] === "execve") continue;
      const family =
        m[3].match(/^(AF_\w+)/)?.[1] ?? m[3].match(/sa_family=(AF_\w+)/)?.[1] ?? `fd ${m[3].split(",")[0]}`;
      const key = `${m[2]}(${family})`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    t.diagnostic(`network syscalls seen: ${[...seen].map(([k, v]) => `${k} x${v}`).join(", ") || "none"}`);
    // An IP socket is one created with AF_INET/AF_INET6, or an address of that family passed to
    // connect/bind/sendto. (Netlink interface dumps mention ifa_family=AF_INET: that is data.)
    const inet = lines.filter((l) => /\bsocket\((AF|PF)_INET6?\b|sa_family=AF_INET6?\b/.test(l));
    assert.deepEqual(inet, [], "no AF_INET/AF_INET6 socket");
    await assertNothingLeft();
  });
});
