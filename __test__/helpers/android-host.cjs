// A Node runner's host as on Termux (Android), for packaging/addon.test.mjs: napi-rs's WASI loader
// takes its Android branch (no app may open the real `/`), and the app's files sit under one
// directory (HOME, PREFIX with the CLI in its bin/, TMPDIR), the workspace in HOME. One explore of
// a cut answer; prints `{ truncated, fullOutputPath, kept, tmp }` (kept: the file was there).
// argv: the fake CLI's script, the package's entry.
Object.defineProperty(process, "platform", { value: "android" });
const fs = require("node:fs");
const path = require("node:path");

const [cli, entry] = process.argv.slice(2);
const app = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "pi-codegraph-android-"));
const [home, usr] = [path.join(app, "home"), path.join(app, "usr")];
const tmp = path.join(usr, "tmp");
for (const d of [home, tmp, path.join(usr, "bin")]) fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(path.join(usr, "bin", "codegraph"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, {
  mode: 0o755,
});
Object.assign(process.env, {
  HOME: home,
  PREFIX: usr,
  TMPDIR: tmp,
  PATH: `${path.join(usr, "bin")}:${process.env.PATH}`,
  PI_CODEGRAPH_RUNNER: "node",
  FAKE_CG_MODE: "lines",
  FAKE_CG_COUNT: "5000",
});
const ws = path.join(home, "proj");
fs.mkdirSync(path.join(ws, ".codegraph"), { recursive: true });
const db = Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4080, 7)]);
fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.db"), db);
fs.writeFileSync(path.join(ws, ".codegraph", ".gitignore"), "*\n!.gitignore\n");
process.chdir(ws);
require(entry)
  .explore("q", ws)
  .then(
    ({ details }) => {
      const fullOutputPath = details.fullOutputPath ?? null;
      const kept = fullOutputPath !== null && fs.existsSync(fullOutputPath);
      return { truncated: details.truncated, fullOutputPath, kept, tmp };
    },
    (e) => ({ code: e.code, message: e.message }),
  )
  .then((out) => process.stdout.write(JSON.stringify(out)))
  .finally(() => fs.rmSync(app, { recursive: true, force: true }));
