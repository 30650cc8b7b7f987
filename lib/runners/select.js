// The package's default runner: the native addon when it loads, else the Node runner (the tool
// keeps working, and the status slot, /codegraph and `pi-codegraph doctor` name the runner).
// PI_CODEGRAPH_RUNNER=native|node forces one: `native` without an addon gives CODEGRAPH_ADDON
// errors (nothing falls back); `node` never loads the addon. Decided once, on first use.

const { LIMIT_NAMES } = require("../contract/limits.js");
const { RUNNER_METHOD_NAMES } = require("../contract/runner-methods.js");
const { firstLine } = require("../contract/text.js");
const { loadBinding, nativeRunner } = require("./native.js");
const { WASM_CORE_FIX, wasmCoreFile } = require("./node/wasm-core.js");

const RUNNER_VAR = "PI_CODEGRAPH_RUNNER";
const NO_WASM_CORE = `its WebAssembly core (wasm/) is missing, so CodeGraph cannot run: ${WASM_CORE_FIX}`;

let chosen;
/** The CodeGraph CLI installed beside this package (setPackageCli), handed to the runner once chosen; undefined: never set here. */
let packageCli;
/** `{ runner, info }`: the runner every call of this process goes to. */
function choose() {
  if (chosen) return chosen;
  chosen = chosenRunner();
  if (packageCli !== undefined) chosen.runner.setPackageCli?.(packageCli);
  return chosen;
}

/** The runner PI_CODEGRAPH_RUNNER and the addon decide: `{ runner, info }`. */
function chosenRunner() {
  let picked;
  const raw = process.env[RUNNER_VAR];
  const wanted = String(raw ?? "")
    .trim()
    .toLowerCase();
  const nodeRunner = (note, fallback) => {
    // Without its WebAssembly core the Node runner runs nothing (each call says CODEGRAPH_ADDON).
    const core = wasmCoreFile();
    const off = core ? "" : `; ${NO_WASM_CORE}`;
    return { runner: require("./node.js"), info: { name: "node", path: core, note: `${note}${off}`, fallback } };
  };
  if (wanted === "native") {
    picked = { runner: nativeRunner, info: null };
  } else if (wanted === "node") {
    picked = nodeRunner(`${RUNNER_VAR}=node`, false);
  } else {
    const ignored = wanted ? `; ${RUNNER_VAR}=${firstLine(raw).slice(0, 40)} is neither native nor node` : "";
    try {
      loadBinding();
      picked = { runner: nativeRunner, info: null };
    } catch (err) {
      if (err.code === "CODEGRAPH_RESOURCES") throw err; // decided on a later call, when it loads
      // One line: what the addon loader found; the whole story is addonInfo().error.
      const why = err.facts?.story?.split(" (tried ")[0] ?? firstLine(err);
      picked = nodeRunner(`native addon not loaded: ${why}${ignored}`, true);
    }
  }
  return picked;
}

/** The runner: `{ name, path, note, fallback }` (fallback: the Node runner stands in for the addon). */
function runnerInfo() {
  const { runner, info } = choose();
  if (info) return { ...info };
  const native = runner.runnerInfo();
  const forced = process.env[RUNNER_VAR] ? `${RUNNER_VAR}=native` : null;
  if (!native.path) return { ...native, note: `not loaded; ${forced ?? "required"}` };
  return { ...native, note: forced };
}

/** The methods that do more than forward to the chosen runner. */
const OWN_METHODS = {
  releaseFullOutputs: (paths) => (chosen ? chosen.runner.releaseFullOutputs(paths) : 0),
  /** Where the CodeGraph CLI installed beside this package is: discovery's last place (after PI_CODEGRAPH_BIN and PATH). */
  setPackageCli: (file) => {
    packageCli = typeof file === "string" ? file : null;
    chosen?.runner.setPackageCli?.(packageCli);
  },
  runnerInfo,
  /** Only a runner already chosen can have started one (none is chosen to stop nothing). */
  stopWarm: async () => (chosen?.runner.stopWarm ? chosen.runner.stopWarm() : 0),
  warmServers: () => (chosen?.runner.warmServers ? chosen.runner.warmServers() : []),
  unwatchChanges: () => (chosen?.runner.unwatchChanges ? chosen.runner.unwatchChanges() : 0),
};
/** Every runner method (lib/contract/runner-methods.js), each forwarded to the runner chosen on first use. */
const defaultRunner = Object.fromEntries(
  RUNNER_METHOD_NAMES.map((name) => [name, OWN_METHODS[name] ?? ((...args) => choose().runner[name](...args))]),
);
for (const name of LIMIT_NAMES) {
  Object.defineProperty(defaultRunner, name, { enumerable: true, get: () => choose().runner[name] });
}

module.exports = { RUNNER_VAR, defaultRunner };
