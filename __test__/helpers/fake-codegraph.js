// A controlled stand-in for the `codegraph` CLI: the one fake of the test suites. Two ways to
// drive it, both deterministic (it does exactly what the test asks and records how it was called):
// - a spec file (FAKE_CG_SPEC, set by the launcher fakeCli() in helpers/index.mjs writes): a
//   declarative list of steps, for the fault catalogue;
// - FAKE_CG_* environment variables (a mode), for the contract suites (fakeBinDir()).

const fs = require("node:fs");
const { spawn, spawnSync } = require("node:child_process");

const env = process.env;
const args = process.argv.slice(2);
/** The index-lifecycle subcommands the fake acts out in its default mode (see lifecycle()). */
const LIFECYCLE = ["init", "index", "sync", "status", "uninit", "unlock"];
/**
 * Writes `file` whole, for a test that polls it: a temporary file of this process, then a rename.
 * The temporary name carries the pid, so fakes writing one file at once never rename each other's.
 */
function writeWhole(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}
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
      writeWhole(env.FAKE_CG_PIDS, JSON.stringify(pids));
    }
  }

  if (args[0] === "serve") {
    require("./fake-mcp-server.js")(env);
    return;
  }
  const mode = env.FAKE_CG_MODE ?? "echo";
  if (mode === "echo" && LIFECYCLE.includes(args[0])) {
    lifecycle(args[0], grandchild);
    return;
  }
  const count = Number(env.FAKE_CG_COUNT ?? 0);
  switch (mode) {
    case "echo":
      // FAKE_CG_READ_GATE=<dir>: a read notes its request in `<dir>/started` and answers once
      // `<dir>/go` exists (a model's call holding its slot for as long as a test needs).
      if (env.FAKE_CG_READ_GATE) {
        const at = env.FAKE_CG_READ_GATE;
        fs.appendFileSync(`${at}/started`, `${args[args.indexOf("--") + 1] ?? ""}\n`);
        const t = setInterval(() => {
          if (!fs.existsSync(`${at}/go`)) return;
          clearInterval(t);
          process.stdout.write(`FAKE EXPLORE\n${JSON.stringify({ argv: args, cwd: process.cwd() })}\n`);
        }, 5);
        break;
      }
      process.stdout.write(`FAKE EXPLORE\n${JSON.stringify({ argv: args, cwd: process.cwd() })}\n`);
      break;
    case "graph": {
      // FAKE_CG_GRAPH=<file>: `{ "<subcommand> <symbol>": answer }` (an answer: an object printed as
      // JSON, or text as it is); a key it lacks prints CodeGraph's own not-found line.
      const answers = JSON.parse(fs.readFileSync(env.FAKE_CG_GRAPH, "utf8"));
      const symbol = args[args.indexOf("--") + 1] ?? "";
      const answer = answers[`${args[0]} ${symbol}`];
      if (answer === undefined) process.stdout.write(`ℹ Symbol "${symbol}" not found\n`);
      else process.stdout.write(typeof answer === "string" ? answer : `${JSON.stringify(answer, null, 2)}\n`);
      break;
    }
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
 * The index directory CodeGraph 1.6.1 opens in `project` (dist/directory.js `codeGraphDirNameFor`):
 * CODEGRAPH_DIR trimmed when a plain name; on a Windows drive under WSL (/mnt/<letter>, WSL_DISTRO_NAME
 * or WSL_INTEROP set, else /proc/version) and no CODEGRAPH_DIR, `.codegraph-wsl` unless only
 * `.codegraph/codegraph.db` exists.
 */
function indexDirName(project) {
  const path = require("node:path");
  const raw = env.CODEGRAPH_DIR?.trim();
  const bad = !raw || raw === "." || raw.includes("..") || /[/\\]/.test(raw) || path.isAbsolute(raw);
  const plain = bad ? ".codegraph" : raw;
  let wsl = process.platform === "linux" && Boolean(env.WSL_DISTRO_NAME || env.WSL_INTEROP);
  if (!wsl && process.platform === "linux") {
    try {
      wsl = /microsoft|wsl/.test(fs.readFileSync("/proc/version", "utf8").toLowerCase());
    } catch {}
  }
  if (raw || !wsl || !/^\/mnt\/[a-z](\/|$)/i.test(path.resolve(project))) return plain;
  try {
    if (fs.statSync(path.join(project, ".codegraph-wsl")).isDirectory()) return ".codegraph-wsl";
  } catch {}
  return fs.existsSync(path.join(project, ".codegraph", "codegraph.db")) ? ".codegraph" : ".codegraph-wsl";
}

/**
 * The index-lifecycle subcommands as CodeGraph 1.6.1 acts them out, on `<index dir>/codegraph.db`:
 * `init` creates it (in its cwd), `index` recreates it, `sync` rewrites it, `uninit` deletes
 * `.codegraph/`, `unlock` removes `codegraph.lock`, `status` prints one JSON line; all but `init`
 * walk UP to the nearest directory with an index, as the real CLI does. Writes hold
 * `codegraph.lock` (this pid) while they run and print Clack-like lines (`init`/`index` with "3/7
 * (42%)" progress). FAKE_CG_GATE=<dir>: mid-write, once a grandchild runs, it writes
 * `<dir>/started.json` ({ self, grandchild }) and waits for `<dir>/go`. FAKE_CG_STATUS: JSON merged
 * into what `status --json` prints.
 */
function lifecycle(sub, grandchild) {
  const path = require("node:path");
  const header = Buffer.from("SQLite format 3\0", "latin1");
  const dbBytes = (fill) => Buffer.concat([header, Buffer.alloc(4080, fill)]);
  // A finished index, as a content check reads one (helpers/roots.mjs indexBytes): a SQLite header
  // (page size 4096, two pages), page 1 a table leaf with CodeGraph's tables; `fill` marks the write.
  const indexDb = (fill) => {
    const page = Buffer.alloc(8192, 0);
    header.copy(page);
    page.writeUInt16BE(4096, 16);
    page.set([1, 1, 0, 64, 32, 32], 18);
    page.writeUInt32BE(fill, 24);
    page.writeUInt32BE(2, 28);
    page.writeUInt32BE(4, 44);
    page.writeUInt32BE(1, 56);
    page[100] = 0x0d;
    const schema = ["nodes", "edges", "files"].map((t) => `CREATE TABLE ${t} (\n    id TEXT PRIMARY KEY\n)`).join("");
    page.write(schema, 4096 - schema.length - 8, "latin1");
    page[4096] = 0x0d;
    page.fill(fill, 8000);
    return page;
  };
  const cwd = process.cwd();
  let root = cwd;
  if (sub !== "init") {
    for (let d = cwd; ; d = path.dirname(d)) {
      if (fs.existsSync(path.join(d, indexDirName(d), "codegraph.db"))) {
        root = d;
        break;
      }
      if (path.dirname(d) === d) {
        if (sub === "unlock" || sub === "uninit") process.stderr.write(`✗ CodeGraph not initialized in ${cwd}\n`);
        else if (sub === "status") process.stdout.write(`${JSON.stringify({ initialized: false })}\n`);
        else {
          process.stderr.write(`✗ CodeGraph not initialized in ${cwd}\n`);
          process.exitCode = 1;
        }
        return;
      }
    }
  }
  const dir = path.join(root, indexDirName(root));
  const db = path.join(dir, "codegraph.db");
  const lock = path.join(dir, "codegraph.lock");
  const out = (lines) => process.stdout.write(lines.map((l) => `${l}\n`).join(""));
  // While it waits, the last line again every 300 ms, as CodeGraph repeats a count: the runner
  // reports stdout at most every 250 ms, on arriving output.
  const gate = (last, then) => {
    const at = env.FAKE_CG_GATE;
    if (!at) return then();
    const pids = { self: process.pid, grandchild: grandchild() };
    writeWhole(path.join(at, "started.json"), JSON.stringify(pids));
    const beat = setInterval(() => out([last]), 300);
    const t = setInterval(() => {
      if (fs.existsSync(path.join(at, "go"))) {
        clearInterval(t);
        clearInterval(beat);
        then();
      }
    }, 5);
  };
  const files = (from, to) =>
    [
      "py/inventory.py",
      "py/restock.py",
      "src/cart.ts",
      "src/checkout.ts",
      "src/index.ts",
      "src/stripe.ts",
      "src/types.ts",
    ]
      .slice(from, to)
      .map((f, i) => `[0.${from + i}s]   ${from + i + 1}/7 (${Math.floor(((from + i + 1) * 100) / 7)}%) — ${f}`);
  const written = (fill, summary) => {
    fs.writeFileSync(db, indexDb(fill));
    out([...files(3, 7), "│", ...summary, "│", "└  Done"]);
    fs.rmSync(lock, { force: true });
  };
  switch (sub) {
    case "init":
      if (fs.existsSync(db)) {
        out(["┌  Initializing CodeGraph", "│", `●  Already initialized in ${cwd}`, "└  Done"]);
        return;
      }
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, ".gitignore"), "*\n!.gitignore\n");
      fs.writeFileSync(db, dbBytes(1));
      fs.writeFileSync(lock, String(process.pid));
      out([
        "┌  Initializing CodeGraph",
        "│",
        `◆  Initialized in ${cwd}`,
        "[0.0s] Phase: scanning",
        "[0.0s] Phase: parsing",
      ]);
      out(files(0, 3));
      gate(files(2, 3)[0], () =>
        written(2, [
          ...(env.CODEGRAPH_NO_WATCH ? ["◆  Installed git post-commit, post-merge, post-checkout hooks"] : []),
          "◆  Indexed 7 files",
          "│",
          "●  43 nodes, 81 edges in 264ms",
          // CodeGraph 1.6.1's debug line after a write (its WAL checkpoint).
          "[wal-valve] checkpoint after write: 12 pages",
        ]),
      );
      return;
    case "index":
      fs.writeFileSync(lock, String(process.pid));
      out(["┌  Indexing project", "[0.0s] Phase: scanning", "[0.0s] Phase: parsing"]);
      out(files(0, 3));
      gate(files(2, 3)[0], () => written(3, ["◆  Indexed 7 files", "│", "●  43 nodes, 81 edges in 301ms"]));
      return;
    case "sync":
      // FAKE_CG_SYNC_FAIL=1: a sync that fails (exit 1, a reason on stderr).
      if (env.FAKE_CG_SYNC_FAIL) {
        process.stderr.write("Error: sync stopped: worker exited unexpectedly\n");
        process.exitCode = 1;
        return;
      }
      fs.writeFileSync(lock, String(process.pid));
      out(["┌  Syncing CodeGraph", "│", "Scanning files..."]);
      gate("Scanning files...", () => {
        fs.writeFileSync(db, indexDb(4));
        fs.rmSync(lock, { force: true });
        // FAKE_CG_SYNC_FILES=<n>: n changed files, each a worker line, then CodeGraph's summary.
        const changed = Number(env.FAKE_CG_SYNC_FILES ?? 0);
        if (changed === 0) return out(["│", "●  Already up to date", "│", "└  Done"]);
        out(Array.from({ length: changed }, (_, i) => `[worker] parsed src/changed-${i}.ts`));
        out(["│", `◆  Synced ${changed} changed files`, "│", "●  43 nodes, 81 edges in 12ms", "│", "└  Done"]);
      });
      return;
    case "status": {
      const facts = {
        initialized: true,
        version: env.FAKE_CG_VERSION ?? "9.9.9-fake",
        projectPath: root,
        indexPath: dir,
        lastIndexed: "2026-01-02T03:04:05.000Z",
        fileCount: 7,
        nodeCount: 43,
        edgeCount: 81,
        dbSizeBytes: fs.statSync(db).size,
        pendingChanges: { added: 0, modified: 0, removed: 0 },
        worktreeMismatch: null,
        index: { builtWithVersion: "9.9.9-fake", reindexRecommended: false, state: "complete", pendingRefs: 0 },
        ...JSON.parse(env.FAKE_CG_STATUS ?? "{}"),
      };
      out([JSON.stringify(facts)]);
      return;
    }
    case "uninit":
      fs.rmSync(dir, { recursive: true, force: true });
      out([`✔ Removed CodeGraph from ${root}`]);
      return;
    case "unlock":
      if (fs.existsSync(lock)) {
        fs.rmSync(lock);
        out(["ℹ Removed stale lock file: codegraph.lock"]);
      } else out(["ℹ No stale lock files found — nothing to do"]);
      return;
  }
}

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
 *   request names, inside the directory `arg` when given); record <log> (appends argv and /proc/self/cmdline); cwd (prints { cwd });
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
    writeWhole(spec.pids, JSON.stringify(pids));
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
        const tmp = JSON.stringify(`${file}.`);
        const code = `process.on("SIGTERM", () => {}); const fs = require("fs"); const tmp = ${tmp} + process.pid + ".tmp"; fs.writeFileSync(tmp, String(process.pid)); fs.renameSync(tmp, ${JSON.stringify(file)});`;
        sleeper(arg, true, code);
        await until(() => fs.existsSync(file));
        pids.daemon = Number(fs.readFileSync(file, "utf8"));
        break;
      }
      case "report":
        report();
        break;
      case "pidToRequest": {
        // The request (the text after `--`) names the file, inside the directory `arg` when given.
        const request = args[args.indexOf("--") + 1];
        const file = arg ? `${arg}/${request}` : request;
        writeWhole(file, String(process.pid));
        break;
      }
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
