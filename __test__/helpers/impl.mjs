// The implementations the contract suites (explore, output, tool, progress, faults) run against:
// the package's glue over the native addon (index.js) and the same glue over the plain-Node runner
// (index.js's forRunner(lib/runners/node)). Both must pass every test unchanged; where the Node
// runner cannot keep a promise, the test says so by name: `impl.differs("why")` is
// `{ skip: "node runner: why" }` for the Node runner and `{}` for the native one.
// PI_CODEGRAPH_IMPL=native|node picks one. (The single-file example is no runner: it uses the
// package, and __test__/example/example.test.mjs proves it as its user has it.)
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "./index.mjs";

const require = createRequire(import.meta.url);
const nodeRunnerEntry = path.join(root, "lib", "runners", "node.js");

const all = [
  { id: "native", name: "native addon", entry: path.join(root, "index.js"), runner: "native" },
  {
    id: "node",
    name: "node runner",
    entry: nodeRunnerEntry,
    runner: "node",
    load: () => require(path.join(root, "index.js")).forRunner(require(nodeRunnerEntry)),
  },
];

const wanted = process.env.PI_CODEGRAPH_IMPL;
if (wanted && !all.some((i) => i.id === wanted)) {
  throw new Error(`PI_CODEGRAPH_IMPL=${wanted}: expected one of ${all.map((i) => i.id).join(", ")}`);
}

function materialize(i) {
  const module = i.load ? i.load() : require(i.entry);
  /** A named skip where the Node runner differs from the addon. */
  const differs = (reason) => (i.runner === "node" ? { skip: `node runner: ${reason}` } : {});
  return { ...i, module, differs };
}

const selected = all.filter((i) => !wanted || i.id === wanted);

/** `{ id, name, entry, module, differs }` for each runner under test: native and node. */
export const implementations = selected.map(materialize);
