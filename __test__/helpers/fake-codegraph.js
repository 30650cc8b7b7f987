// A controlled stand-in for the `codegraph` CLI: the one fake of the test suites. Two ways to
// drive it, both deterministic (it does exactly what the test asks and records how it was called):
// - a spec file (FAKE_CG_SPEC, set by the launcher fakeCli() in helpers/index.mjs writes): a
//   declarative list of steps, for the fault catalogue;
// - FAKE_CG_* environment variables (a mode), for the contract suites (fakeBinDir()).

const fs = require("node:fs");
const { spawn, spawnSync } = require("node:child_process");

const env = process.env;
const args = process.argv.slice(2);
const log = (record) => env.FAKE_CG_LOG && fs.appendFileSync(env.FAKE_CG_LOG, `${JSON.stringify(record)}\n`);

(() => {
  if (env.FAKE_CG_SPEC) {
    runSpec(JSON.parse(fs.readFileSync(env.FAKE_CG_SPEC, "utf8")));
    return;
  }
  if (args[0] === "--version") {
    process.stdout.write(`${env.FAKE_CG_VERSION ?? "9.9.9-fake"}\n`);
    process.exit(0);
  }

  log({
    argv: args,
    cwd: process.cwd(),
    pid: process.pid,
    env: Object.fromEntries(
      ["CODEGRAPH_TELEMETRY", "CODEGRAPH_NO_UPDATE_CHECK", "CODEGRAPH_NO_DOWNLOAD", "NO_COLOR", "DO_NOT_TRACK"].map(
        (k) => [k, env[k] ?? null],
      ),
    ),
  });

  /** Starts a grandchild that lives until killed, and records both pids once it runs. */
  function grandchild(extra = "") {
    const child = spawn(process.execPath, ["-e", `${extra}; setInterval(() => {}, 1000)`], {
      stdio: env.FAKE_CG_GRANDCHILD_STDIO === "inherit" ? "inherit" : "ignore",
    });
    child.unref(); // the fake's own lifetime is decided by its mode, not by the grandchild
    return child.pid;
  }
  function ready(pids) {
    if (env.FAKE_CG_PIDS) {
      fs.writeFileSync(`${env.FAKE_CG_PIDS}.tmp`, JSON.stringify(pids));
      fs.renameSync(`${env.FAKE_CG_PIDS}.tmp`, env.FAKE_CG_PIDS);
    }
  }

  const mode = env.FAKE_CG_MODE ?? "echo";
  const count = Number(env.FAKE_CG_COUNT ?? 0);
  switch (mode) {
    case "echo":
      process.stdout.write(`FAKE EXPLORE\n${JSON.stringify({ argv: args, cwd: process.cwd() })}\n`);
      break;
    case "lines":
      process.stdout.write(`${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
      break;
    case "drip": {
      // `count` lines, one every FAKE_CG_INTERVAL ms: output that arrives over time.
      let i = 0;
      const timer = setInterval(
        () => {
          i += 1;
          process.stdout.write(`drip ${i}\n`);
          if (i >= count) clearInterval(timer);
        },
        Number(env.FAKE_CG_INTERVAL ?? 100),
      );
      break;
    }
    case "chars":
      // `count` copies of FAKE_CG_CHAR with no newline: one huge line.
      process.stdout.write((env.FAKE_CG_CHAR ?? "é").repeat(count));
      break;
    case "exit":
      process.stdout.write(env.FAKE_CG_STDOUT ?? "");
      if (env.FAKE_CG_STDERR !== undefined) process.stderr.write(env.FAKE_CG_STDERR);
      else if (count > 0) process.stderr.write(`${"x".repeat(count)}\nTAIL-END`);
      process.exitCode = Number(env.FAKE_CG_EXIT ?? 1);
      break;
    case "noindex":
      process.stderr.write(`✗ CodeGraph isn't available here — no .codegraph/ index exists in ${process.cwd()}.\n`);
      process.exitCode = 1;
      break;
    case "hang":
      // Stays running (with a grandchild) until something kills the tree.
      ready({ self: process.pid, grandchild: grandchild() });
      setInterval(() => {}, 1000);
      break;
    case "ignore-term":
      // Both ignore SIGTERM: only SIGKILL of the whole group ends them.
      process.on("SIGTERM", () => {});
      ready({ self: process.pid, grandchild: grandchild("process.on('SIGTERM', () => {})") });
      setInterval(() => {}, 1000);
      break;
    case "leave-grandchild":
      // Exits at once, but a grandchild keeps stdout open: a read-to-EOF would hang.
      ready({ self: process.pid, grandchild: grandchild() });
      process.stdout.write("answer before exit\n");
      break;
    default:
      process.stderr.write(`fake codegraph: unknown mode ${mode}\n`);
      process.exitCode = 2;
  }
})();

/**
 * Runs a spec: `{ version, pids, versionRunsOnPath, steps: [[op, arg], ...] }`. `version` is what
 * `--version` prints (a string), or "hang" (it reports `{ probe: pid }` and never answers);
 * `versionRunsOnPath` names a program the `--version` run starts first, looked up on its PATH (as
 * CodeGraph's launcher runs `dirname`). The ops, in order:
 *   stdout / stderr <text>; stdoutBase64 / stderrBase64 <base64>; stderrFill [bytes, char];
 *   stdoutForever / stderrForever <line> (never ends); sleep <ms>; waitFile <path>; waitPids
 *   (until a report, the hanging probe's say, is in `pids`);
 *   closeStdout; closeStderr; grandchild <"ignore"|"inherit"> (a child that sleeps until killed);
 *   daemon <stdio> (a new session, ignoring SIGTERM; waits until it runs); report (writes
 *   { self, grandchild?, daemon? } to `pids`); pidToRequest (writes its pid to the file the
 *   request names); record <log> (appends argv and /proc/self/cmdline); cwd (prints { cwd });
 *   appendArgv0 <file>; failIfExists <path> (exit 9 when it is there); removeCwd (deletes its
 *   working directory, the workspace, as a user might mid-call); runOnPath <name> (starts
 *   it as a PATH lookup finds it, in its cwd, as CodeGraph runs `dirname` and `git`; a failure to
 *   start is ignored); env [names] (prints { name: value or null }); kill <signal>; exit <code>;
 *   hang (runs until killed).
 */
async function runSpec(spec) {
  const args = process.argv.slice(2);
  const pids = { self: process.pid };
  const report = () => {
    fs.writeFileSync(`${spec.pids}.tmp`, JSON.stringify(pids));
    fs.renameSync(`${spec.pids}.tmp`, spec.pids);
  };
  const runOnPath = (name) => spawnSync(name, [], { stdio: "ignore" });
  if (args[0] === "--version") {
    if (spec.versionRunsOnPath) runOnPath(spec.versionRunsOnPath);
    if (spec.version !== "hang") {
      process.stdout.write(`${spec.version ?? "1.0.0-faults"}\n`);
      return;
    }
    pids.probe = process.pid;
    report();
    setInterval(() => {}, 1000);
    return;
  }
  const write = (stream, data) => new Promise((resolve) => stream.write(data, () => resolve()));
  const forever = async (stream, line) => {
    const block = Buffer.from(line.repeat(Math.max(1, Math.floor(65536 / line.length))));
    stream.on("error", () => process.exit(1)); // our reader hung up
    for (;;) await write(stream, block);
  };
  const sleeper = (stdio, detached, extra = "") => {
    const child = spawn(process.execPath, ["-e", `${extra}setInterval(() => {}, 1000)`], { stdio, detached });
    child.unref();
    return child.pid;
  };
  const until = (check) =>
    new Promise((resolve) => {
      const t = setInterval(() => {
        if (check()) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
  for (const [op, arg] of spec.steps ?? []) {
    switch (op) {
      case "stdout":
      case "stderr":
        await write(process[op], arg);
        break;
      case "stdoutBase64":
        await write(process.stdout, Buffer.from(arg, "base64"));
        break;
      case "stderrBase64":
        await write(process.stderr, Buffer.from(arg, "base64"));
        break;
      case "stderrFill": {
        const [bytes, char] = arg;
        const block = Buffer.alloc(1024 * 1024, char);
        for (let left = bytes; left > 0; left -= block.length)
          await write(process.stderr, left >= block.length ? block : block.subarray(0, left));
        break;
      }
      case "stdoutForever":
        await forever(process.stdout, arg);
        break;
      case "stderrForever":
        await forever(process.stderr, arg);
        break;
      case "sleep":
        await new Promise((r) => setTimeout(r, arg));
        break;
      case "waitFile":
        await until(() => fs.existsSync(arg));
        break;
      case "gate": {
        // For the parallel-call tests: note this call's request in `<arg>/started`, wait until the
        // test creates `<arg>/<request>.go` (or `<arg>/all.go`), then answer with the request.
        const request = args[args.indexOf("--") + 1] ?? "";
        fs.appendFileSync(`${arg}/started`, `${request}\n`);
        await until(() => fs.existsSync(`${arg}/${request}.go`) || fs.existsSync(`${arg}/all.go`));
        await write(process.stdout, `answer: ${request}\n`);
        break;
      }
      case "waitPids": // until something (the --version probe, say) has reported to `pids`
        await until(() => fs.existsSync(spec.pids));
        break;
      case "closeStdout":
        fs.closeSync(1);
        break;
      case "closeStderr":
        fs.closeSync(2);
        break;
      case "grandchild":
        pids.grandchild = sleeper(arg === "inherit" ? "inherit" : "ignore", false);
        break;
      case "daemon": {
        const file = `${spec.pids}.daemon`;
        const code = `process.on("SIGTERM", () => {}); require("fs").writeFileSync(${JSON.stringify(`${file}.tmp`)}, String(process.pid)); require("fs").renameSync(${JSON.stringify(`${file}.tmp`)}, ${JSON.stringify(file)});`;
        sleeper(arg, true, code);
        await until(() => fs.existsSync(file));
        pids.daemon = Number(fs.readFileSync(file, "utf8"));
        break;
      }
      case "report":
        report();
        break;
      case "pidToRequest":
        fs.writeFileSync(`${args[2]}.tmp`, String(process.pid));
        fs.renameSync(`${args[2]}.tmp`, args[2]);
        break;
      case "record": {
        const cmdline = fs.readFileSync("/proc/self/cmdline").toString("base64");
        fs.appendFileSync(arg, `${JSON.stringify({ argv: args, cmdline })}\n`);
        break;
      }
      case "cwd": {
        let cwd;
        try {
          cwd = process.cwd();
        } catch (e) {
          cwd = e.code;
        }
        await write(process.stdout, `${JSON.stringify({ cwd })}\n`);
        break;
      }
      case "appendArgv0":
        fs.appendFileSync(arg, `${process.argv[1]}\n`);
        break;
      case "runOnPath":
        runOnPath(arg);
        break;
      case "removeCwd":
        fs.rmSync(process.cwd(), { recursive: true, force: true });
        break;
      case "env":
        await write(
          process.stdout,
          `${JSON.stringify(Object.fromEntries(arg.map((k) => [k, process.env[k] ?? null])))}\n`,
        );
        break;
      case "failIfExists":
        // What a CLI started too early would see (a lock still held): a loud failure.
        if (fs.existsSync(arg)) {
          await write(process.stderr, `RAN WHILE ${arg} EXISTED\n`);
          process.exit(9);
        }
        break;
      case "kill":
        process.kill(process.pid, arg);
        await new Promise(() => {});
        break;
      case "exit":
        process.exit(arg);
        break;
      case "hang":
        setInterval(() => {}, 1000);
        await new Promise(() => {});
        break;
      default:
        throw new Error(`fake codegraph: unknown step ${op}`);
    }
  }
}
