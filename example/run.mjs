// The README's main job: one explore on the shipped example workspace, through the same native
// explore() the Pi tool uses, required as a user of the package requires it ("pi-codegraph" is
// this checkout: package.json's "exports" make the name resolve inside it). Index it first,
// explicitly: `npm run example:index`.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { explore } = require("pi-codegraph");

const workspace = path.join(path.dirname(fileURLToPath(import.meta.url)), "workspace");
const request = process.argv.slice(2).join(" ") || "how does NoteService.addNote reach MemoryStorage.save";

try {
  const { text, details } = await explore(request, workspace);
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  const { cliVersion, durationMs, keptBytes, keptLines, truncated } = details;
  console.error(
    `\n[pi-codegraph] codegraph ${cliVersion ?? "(version unknown)"} · ${durationMs} ms · ${keptBytes} bytes · ${keptLines} lines${truncated ? " · truncated" : ""}`,
  );
} catch (err) {
  console.error(err.message);
  process.exitCode = 1;
}
