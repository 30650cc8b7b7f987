// The recording stub: a runner (shaped like the addon's module, lib/glue.js) that records every
// command description it receives and hands it to a real runner, and the package's glue over it
// (index.js forRunner). What a call gave the runner is then a fact a test can read: its
// description (argv, caps, budget), its cwd, signal and options.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { forRunner } = require("../../index.js");
const { LIMIT_NAMES } = require("../../lib/contract/limits.js");

/** The real runner of a runner id (helpers/impl.mjs): the addon's or the Node runner's module. */
export function runnerOf(id) {
  return id === "native" ? require("../../lib/runners/native.js").nativeRunner : require("../../lib/runners/node.js");
}

/**
 * `{ glue, seen }`: the glue over `runner` behind a recorder; `seen` lists the runCommand calls
 * (`{ command, cwd, signal, options }`). `options(given)` may change the options the runner gets
 * (the recorded ones are the caller's).
 */
export function recording(runner, { options: adjust = (given) => given } = {}) {
  const seen = [];
  const stub = {
    runCommand(command, cwd, signal, options) {
      seen.push({ command, cwd, signal, options });
      return runner.runCommand(command, cwd, signal, adjust(options));
    },
    diagnose: (cwd, workspace) => runner.diagnose(cwd, workspace),
    releaseFullOutputs: (paths) => runner.releaseFullOutputs(paths),
    runnerInfo: () => runner.runnerInfo(),
  };
  for (const name of LIMIT_NAMES) stub[name] = runner[name];
  return { glue: forRunner(stub), seen };
}
