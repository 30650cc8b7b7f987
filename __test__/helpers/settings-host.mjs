// A child process for __test__/contracts/settings-files.test.mjs: Pi host sessions (helpers/pi-host.mjs)
// over the package, one per case, each in its own workspace whose saved settings files the test
// planted (a FIFO, a device…). A session start that blocks on one blocks this whole process, so
// the test runs it here under a hard timeout. argv[2]: JSON `{ cases: [{ name, ws, swap? }] }`;
// `swap`: files replaced by a FIFO (or, with `swapTo: "huge"`, grown to 64 MiB) right after the
// glue's stat of them (the race a check-then-open loses). Prints one JSON line per case, as soon as each is done: `{ name, status, tools,
// roots, active }` (what `/codegraph doctor`, `/codegraph tools`, `/codegraph roots` said; the tools on).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { codegraphSaid, hostWith, recordingUi } from "./pi-host.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const { cases } = JSON.parse(process.argv[2]);

const swapped = new Map(cases.flatMap((c) => (c.swap ?? []).map((f) => [f, c.swapTo ?? "fifo"])));
const statSync = fs.statSync;
fs.statSync = function patchedStat(file, ...rest) {
  const st = statSync.call(this, file, ...rest);
  const to = swapped.get(String(file));
  swapped.delete(String(file));
  if (to === "fifo") {
    fs.rmSync(file);
    execFileSync("mkfifo", [file]);
  } else if (to === "huge") fs.truncateSync(file, 64 * 1024 * 1024);
  return st;
};

for (const c of cases) {
  process.stdout.write(`${JSON.stringify({ name: c.name, starting: true })}\n`);
  const host = await hostWith(pkg, "settings");
  const ui = recordingUi();
  const ctx = { cwd: c.ws, hasUI: true, ui };
  await host.startSession(ctx);
  const said = (args) => codegraphSaid(host, ctx, args);
  const out = {
    name: c.name,
    status: await said("doctor"),
    tools: await said("tools"),
    roots: await said("roots"),
    active: host.activeTools().map((t) => t.name),
  };
  await host.shutdown(ctx);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
process.stdout.write("", () => process.exit(0));
