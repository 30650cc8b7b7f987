// Pi's entry point (package.json "pi.extensions"; Pi lists the extension by this package's name
// because the file is extensions/index.js). Written with `import`, as Pi's own examples are:
// Pi's loader then evaluates it itself and hands each import Pi's own instance (aliases to Pi's
// files under a modular Node install, in-memory modules in Pi's bundled and Bun-compiled
// runtimes), never a copy found beside this package. From Pi itself come TypeBox and the display
// helpers, so the tool's result reads like Pi's own tools': `formatSize`, `keyHint` (the user's
// expand key), and the parts of Pi's BorderedLoader, the /codegraph verbs' progress box (Esc
// cancels; lib/pi/commands/progress-box.js).

import { createRequire } from "node:module";
import { StringEnum } from "@earendil-works/pi-ai";
import { DynamicBorder, formatSize, getAgentDir, keyHint } from "@earendil-works/pi-coding-agent";
import { CancellableLoader, Container, Spacer, Text } from "@earendil-works/pi-tui";
import { Type } from "typebox";

const peers = {
  Type,
  Text,
  StringEnum,
  CancellableLoader,
  Container,
  DynamicBorder,
  Spacer,
  formatSize,
  getAgentDir,
  keyHint,
};
// This package's own modules natively: through Pi's loader each of them would be transformed and
// evaluated again at every start (about a quarter of a second; bench/figures/start.mjs).
const ownRequire = createRequire(import.meta.url);
export default ownRequire("../index.js").createExtension(() => peers);
