// Pi's entry point (package.json "pi.extensions"). It requires Pi's peers at load time on
// purpose: Pi's loader (jiti) first tries a plain `require` of this file, and only when that
// throws evaluates it itself with Pi's own `typebox` and `@mariozechner/pi-tui` (aliases under
// Node, virtual modules in Pi's Bun-compiled binary). A global install has neither next to it,
// so a lazy require would fail later, inside session_start.

const { Type } = require("typebox");
const { Text } = require("@mariozechner/pi-tui");

const peers = { Type, Text };
module.exports = require("./index.js").createExtension(() => peers);
