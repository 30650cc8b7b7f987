// The recording stub: a backend (shaped like the addon's module, lib/glue.js) that records every
// command description it receives and hands it to a real runner, and the package's glue over it
// (index.js forBackend). What a call gave the runner is then a fact a test can read: its
// description (argv, caps, budget), its cwd, signal and options.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { forBackend } = require("../../index.js");
const { LIMIT_NAMES } = require("../../lib/contract/limits.js");

/** The real runner of a backend id (helpers/impl.mjs): the addon's or the Node runner's module. */
export function runnerOf(id) {
  return id === "native" ? require("../../lib/runners/native.js").nativeBackend : require("../../lib/runners/node.js");
}

/**
 * `{ glue, seen }`: the glue over `backend` behind a recorder; `seen` lists the runCommand calls
 * (`{ command, cwd, signal, options }`). `options(given)` may change the options the runner gets
 * (the recorded ones are the caller's).
 */
export function recording(backend, { options: adjust = (given) => given } = {}) {
  const seen = [];
  const stub = {
    runCommand(command, cwd, signal, options) {
      seen.push({ command, cwd, signal, options });
      return backend.runCommand(command, cwd, signal, adjust(options));
    },
    diagnose: (cwd, workspace) => backend.diagnose(cwd, workspace),
    releaseFullOutputs: (paths) => backend.releaseFullOutputs(paths),
    runnerInfo: () => backend.runnerInfo(),
  };
  for (const name of LIMIT_NAMES) stub[name] = backend[name];
  return { glue: forBackend(stub), seen };
}
