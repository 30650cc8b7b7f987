// Pi's entry point (package.json "pi.extensions"; Pi lists the extension by this package's name
// because the file is extensions/index.js). Written with `import`, as Pi's own examples are:
// Pi's loader then evaluates it itself and hands each import Pi's own instance (aliases to Pi's
// files under a modular Node install, in-memory modules in Pi's bundled and Bun-compiled
// runtimes), never a copy found beside this package. From Pi itself come TypeBox and the display
// helpers, so the tool's result reads like Pi's own tools': `formatSize`, `keyHint` (the user's
// expand key), and the parts of Pi's BorderedLoader, the /codegraph verbs' progress box (Esc
// cancels; lib/pi/commands/progress-box.js).

import { createRequire } from "node:module";
import * as piAi from "@earendil-works/pi-ai";
import * as piCodingAgent from "@earendil-works/pi-coding-agent";
import * as piTui from "@earendil-works/pi-tui";
import * as typebox from "typebox";

// This package's own modules natively: through Pi's loader each of them would be transformed and
// evaluated again at every start (about a quarter of a second). Only the extension's shell loads
// now; the package (its runner, the session's modules) when a session starts, after Pi's own
// start (lib/pi/extension.js; bench/figures/start.mjs).
const ownRequire = createRequire(import.meta.url);
const { createExtension } = ownRequire("../lib/pi/extension.js");
const { peersFrom } = ownRequire("../lib/pi/peers.js");
export default createExtension(
  // Under Pi, the CodeGraph CLI installed beside this package runs when none is on PATH.
  () => ownRequire("../index.js").usePackageCli(),
  () => peersFrom({ typebox, piAi, piTui, piCodingAgent }),
);
