// Run by __test__/repository-files/interrupted-outside.test.mjs, perhaps in a pid namespace of its own: what the
// runner PI_CODEGRAPH_IMPL names says of the index in argv[2] (diagnose, then `/codegraph unlock`
// in a Pi session over the fake CLI), as one JSON line on stdout.
import fs from "node:fs";
import path from "node:path";
import { implementations } from "./impl.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "./pi-host.mjs";

const ws = process.argv[2];
const [impl] = implementations;
await piInteractive();
const d = await impl.module.diagnose(ws);
const host = await hostWith(impl.module, "writer-check");
const ui = recordingUi();
const ctx = { cwd: ws, hasUI: true, ui };
await host.startSession(ctx);
const unlock = await codegraphSaid(host, ctx, "unlock");
const lock = path.join(ws, ".codegraph", "codegraph.lock");
process.stdout.write(
  `${JSON.stringify({ problemCode: d.problemCode, problem: d.problem, remediation: d.remediation, unlock, locked: fs.existsSync(lock), confirms: ui.confirms.length })}\n`,
);
process.exit(0);
