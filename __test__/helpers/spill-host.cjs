// A host for the full-output sweep tests: one truncated explore() (or focused tool: tool-call.cjs) (its first spill sweeps the
// directory), prints `{ file }`, then, with "hold", stays alive until its stdin closes.
// argv: <entry> <workspace> <codegraph> [hold]
const { callOf } = require("./tool-call.cjs");

const [entry, ws, bin, hold] = process.argv.slice(2);
process.env.PI_CODEGRAPH_BIN = bin;
callOf(require(entry), entry)("q", ws)
  .then(
    (r) => process.stdout.write(`${JSON.stringify({ file: r.details.fullOutputPath ?? null })}\n`),
    (e) => process.stdout.write(`${JSON.stringify({ code: e.code, message: e.message })}\n`),
  )
  .then(() => {
    if (hold === "hold") process.stdin.on("data", () => {}).on("end", () => process.exit(0));
  });
