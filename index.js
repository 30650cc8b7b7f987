// pi-codegraph: the Pi extension. The glue (lib/: the tool, its guidance and rendering, the
// session lifecycle) over a runner: the native addon (src/) by default, the Node runner
// (lib/runners/node/) when no addon loads or PI_CODEGRAPH_RUNNER=node. No process logic lives in
// the glue. `forRunner(runner)` builds the same exports over any addon-shaped runner.

const { wordedAddonInfo } = require("./lib/api/failures.js");
const { glueOver } = require("./lib/glue.js");
const { addonInfo: nativeAddonInfo } = require("./lib/runners/native.js");
const { installedPeers } = require("./lib/pi/peers.js");
const { defaultRunner } = require("./lib/runners/select.js");
const path = require("node:path");
const pkg = require("./package.json");

/** Which native binary is loaded, or why none could be, in words. */
const addonInfo = () => wordedAddonInfo(nativeAddonInfo());

/** This copy of pi-codegraph: with two installs, the one Pi loads first is the active one. */
const extension = { name: pkg.name, version: pkg.version, path: __dirname };

/**
 * The CodeGraph CLI installed beside this package (this checkout's pinned devDependency after
 * `npm install`, or one installed next to a published copy), or null: where discovery looks last,
 * after PI_CODEGRAPH_BIN and PATH. CodeGraph's npm launcher on Unix (the runner execs its platform
 * bundle), npm's `.cmd` on Windows.
 */
function packageCli() {
  try {
    const manifest = require.resolve("@colbymchenry/codegraph/package.json", { paths: [__dirname] });
    if (process.platform !== "win32") return path.join(path.dirname(manifest), "npm-shim.js");
    return path.join(path.dirname(manifest), "..", "..", ".bin", "codegraph.cmd");
  } catch {
    return null;
  }
}

/**
 * Lets the default runner run the CLI installed beside this package when none is on PATH: what
 * Pi's entry (extensions/index.js) and `pi-codegraph doctor` do, so `pi -e <checkout>` works
 * without a global CodeGraph and doctor says what Pi would run. The SDK's default export leaves
 * it off (its caller's PATH or PI_CODEGRAPH_BIN decides). Returns the glue.
 */
function usePackageCli() {
  defaultRunner.setPackageCli(packageCli());
  return module.exports;
}

/** The package's glue over `runner` (an addon-shaped module; see lib/glue.js). */
function forRunner(runner, options = {}) {
  return glueOver(runner, { extension, getPeers: installedPeers, addonInfo, ...options });
}

/**
 * The default export: the factory with the peers resolved from this package's location, for the
 * SDK and tests (where `typebox` and `@earendil-works/pi-tui` are installed beside it). Pi itself
 * loads `extensions/index.js` (the package's `pi` manifest; also `pi -e <package dir>`), which hands over
 * Pi's own copies.
 */
module.exports = forRunner(defaultRunner);
module.exports.forRunner = forRunner;
module.exports.usePackageCli = usePackageCli;
