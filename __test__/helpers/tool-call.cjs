// The call a host script of the fault catalogue runs (resource-host.cjs, spill-host.cjs): explore()
// of the required entry, or, when PI_CODEGRAPH_TEST_TOOL names a focused tool (faults/suite.mjs
// `toolEnv`: `{ glue, key, extra }`), that tool with the request as its text argument. The node
// runner's entry is the bare runner: every call goes through the glue over it (index.js forRunner).
const path = require("node:path");

/** `(request, cwd, signal, options) => Promise` over `mod`, the module required from `entry`. */
function callOf(mod, entry) {
  const spec = process.env.PI_CODEGRAPH_TEST_TOOL;
  const index = path.join(__dirname, "..", "..", "index.js");
  const calls = path.resolve(entry) === index ? mod : require(index).forRunner(mod);
  if (!spec) return (request, ...rest) => calls.explore(request, ...rest);
  const { glue, key, extra } = JSON.parse(spec);
  return (request, ...rest) => calls[glue]({ ...extra, [key]: request }, ...rest);
}

module.exports = { callOf };
