// A controlled stand-in for the `codegraph` CLI, driven by FAKE_CG_* environment variables.
// Deterministic: it does exactly what the test asks and records how it was called.

const fs = require("node:fs");
const { spawn } = require("node:child_process");

const env = process.env;
const args = process.argv.slice(2);
const log = (record) => env.FAKE_CG_LOG && fs.appendFileSync(env.FAKE_CG_LOG, `${JSON.stringify(record)}\n`);

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
