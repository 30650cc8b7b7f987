// Pi's entry point (package.json "pi.extensions"). It requires Pi's peers at load time on
// purpose: Pi's loader (jiti) first tries a plain `require` of this file, and only when that
// throws evaluates it itself with Pi's own `typebox`, `@mariozechner/pi-tui` and
// `@mariozechner/pi-coding-agent` (aliases under Node, virtual modules in Pi's Bun-compiled
// binary). A global install has none of them next to it, so a lazy require would fail later,
// inside session_start. From Pi itself come its display helpers, so the tool's result reads like
// Pi's own tools': `formatSize` and `keyHint` (the user's expand key), and `BorderedLoader`, the
// progress box (Esc cancels) of the /codegraph verbs.

const { createRequire } = require("node:module");

/**
 * Pi's own instance of one of its modules. Under Node, Pi's loader (jiti) evaluates a fresh copy
 * of whatever this file requires; for Pi itself that costs about a second and gives a keyHint that
 * knows none of the keybindings Pi set on its own copy. So the file Pi's alias names is required
 * natively, which returns the module Pi already imported (require(esm): Node 20.19+ and 22.12+).
 * In Pi's Bun binary the module is virtual, and the plain require is Pi's own.
 */
function piOwn(id) {
  try {
    return createRequire(__filename)(require.resolve(id));
  } catch {
    return require(id);
  }
}

const { Type } = piOwn("typebox");
const { Text } = piOwn("@mariozechner/pi-tui");
const { StringEnum } = piOwn("@mariozechner/pi-ai");
const { BorderedLoader, formatSize, getAgentDir, keyHint } = piOwn("@mariozechner/pi-coding-agent");

const peers = { Type, Text, StringEnum, BorderedLoader, formatSize, getAgentDir, keyHint };
// This package's own modules natively too: through the loader each of them would be transformed
// and evaluated again at every start (about a quarter of a second; bench/start.mjs).
module.exports = createRequire(__filename)("./index.js").createExtension(() => peers);
