// The implementations the contract suites (explore, output, tool, progress, faults) run against:
// the package's glue over the native addon (index.js), the same glue over the plain-Node runner
// (index.js's forBackend(lib/runners/node)), and, where a suite is cheap, the generated
// single-file example (example/codegraph-explore.js: the same glue and Node runner in one file).
// All must pass every test unchanged; where the Node runner cannot keep a promise, the test says
// so by name: `impl.differs("why")` is `{ skip: "node backend: why" }` for the Node-runner
// implementations and `{}` for the native one. PI_CODEGRAPH_IMPL=native|node|example picks one.
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "./index.mjs";

const require = createRequire(import.meta.url);
const nodeBackendEntry = path.join(root, "lib", "runners", "node.js");

const all = [
  { id: "native", name: "native addon", entry: path.join(root, "index.js"), runner: "native" },
  {
    id: "node",
    name: "node runner",
    entry: nodeBackendEntry,
    runner: "node",
    load: () => require(path.join(root, "index.js")).forBackend(require(nodeBackendEntry)),
  },
  {
    id: "example",
    name: "single-file example",
    entry: path.join(root, "example", "codegraph-explore.js"),
    runner: "node",
    example: true,
  },
];

const wanted = process.env.PI_CODEGRAPH_IMPL;
if (wanted && !all.some((i) => i.id === wanted)) {
  throw new Error(`PI_CODEGRAPH_IMPL=${wanted}: expected one of ${all.map((i) => i.id).join(", ")}`);
}

function materialize(i) {
  const module = i.load ? i.load() : require(i.entry);
  /** A named skip where the Node runner differs from the addon. */
  const differs = (reason) => (i.runner === "node" ? { skip: `node backend: ${reason}` } : {});
  return { ...i, module, differs };
}

const selected = all.filter((i) => !wanted || i.id === wanted);

/** `{ id, name, entry, module, differs }` for each backend under test: native and node. */
export const implementations = selected.filter((i) => !i.example).map(materialize);

/** The same, plus the generated single-file example (for the suites cheap enough to run thrice). */
export const withExample = [...implementations, ...selected.filter((i) => i.example).map(materialize)];
