// A host process for the resource-exhaustion tests: requires a runner entry, then runs
// explore() (or the focused tool PI_CODEGRAPH_TEST_TOOL names: tool-call.cjs) with a given number of file descriptors left free (the rest held open), and prints
// one JSON line per call ({ free, ok, code, missing }) and finally { survived: true }.
// argv: <entry> <workspace> <codegraph> <phase: before-load|after-load|warm> <free,free,...>
const fs = require("node:fs");
const { callOf } = require("./tool-call.cjs");

const [entry, ws, bin, phase, frees] = process.argv.slice(2);
process.env.PI_CODEGRAPH_BIN = bin;
const held = [];
/** Opens /dev/null until the limit, then closes `free` of them again. */
function exhaust(free) {
  try {
    for (;;) held.push(fs.openSync("/dev/null", "r"));
  } catch {}
  for (const fd of held.splice(0, free)) fs.closeSync(fd);
}
function release() {
  for (const fd of held.splice(0)) fs.closeSync(fd);
}
const report = (record) => fs.writeSync(1, `${JSON.stringify(record)}\n`);
let callee; // built once the entry is required, before any limit
const call = (_mod, free) =>
  callee("q", ws).then(
    (r) => ({ free, ok: true, missing: r.details.fullOutputMissing ?? null }),
    (e) => ({ free, ok: false, code: e?.code, message: String(e?.message).split("\n")[0] }),
  );

(async () => {
  // before-load: the package is required (the addon itself loads on the first call).
  const mod = require(entry);
  callee = callOf(mod, entry);
  if (phase === "after-load") mod.limits?.(); // the addon loaded, its runtime not started
  if (phase === "warm") report({ warm: await call(mod, -1) });
  for (const free of frees.split(",").map(Number)) {
    exhaust(free);
    let outcome;
    try {
      outcome = await call(mod, free);
    } catch (e) {
      outcome = { free, ok: false, code: e?.code, message: String(e?.message).split("\n")[0] };
    }
    release();
    report(outcome);
    report({ after: await call(mod, free) }); // resources are back: the next call works
  }
  report({ survived: true });
})();
