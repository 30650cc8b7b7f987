const { VERSION_TIMEOUT_MS } = require("./limits.js");
const { run } = require("./run.js");

// ---------------------------------------------------------------------------------------------
// `codegraph --version`: diagnostics only, never used to refuse. Cached per executable; calls
// made while the first probe runs share it. Node differs: when an explore fails first, the
// addon kills its unfinished probe; here the probe finishes (within its own 5 s timeout).

const versions = new Map();
function cliVersion(launch, cwd, env) {
  if (!versions.has(launch.executable)) {
    const probe = run({ launch, args: ["--version"], cwd, env, timeoutMs: VERSION_TIMEOUT_MS, cancel: {} }).then(
      (out) => {
        const first = out.stdout.text.split("\n")[0].trim();
        return out.status.code === 0 && first ? [...first].slice(0, 64).join("") : null;
      },
      () => null,
    );
    versions.set(launch.executable, probe);
  }
  return versions.get(launch.executable);
}

module.exports = { cliVersion };
