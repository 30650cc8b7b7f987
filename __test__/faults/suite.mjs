// The fault catalogue's harness: the backends every suite runs against, a clean environment per
// test file (an empty PATH, an indexed workspace, the process mark) with the final verdict on the
// process table, and explore()/diagnose() of one backend with a given executable.
import { after, before, describe } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { assertCleanProcessTable, restoreMark, setMark } from "../helpers/processes.mjs";

/**
 * Each backend under test, from helpers/impl.mjs (PI_CODEGRAPH_IMPL=native|node picks one):
 * `{ id, entry, module, differs }`; `differs(why)` is the named skip where the Node
 * backend cannot keep the addon's promise. `module` is the package's glue over that backend
 * (explore/diagnose/releaseFullOutputs/createExtension); `entry` is what a child script
 * requires for explore/diagnose (index.js for native, lib/backends/node for node).
 */
export const backends = implementations;

export const saved = { PATH: process.env.PATH, BIN: process.env.PI_CODEGRAPH_BIN };

/** explore/diagnose/releaseFullOutputs of `backend`, and exploreWith(bin, …) that times the call. */
export function forBackend(backend) {
  const { explore, diagnose, releaseFullOutputs } = backend.module;
  async function exploreWith(bin, request, cwd, signal, options, extraEnv = {}) {
    const started = Date.now();
    const result = await withEnv({ PI_CODEGRAPH_BIN: bin, ...extraEnv }, () =>
      explore(request, cwd, signal, options).then(
        (value) => ({ value }),
        (error) => ({ error }),
      ),
    );
    return { ...result, ms: Date.now() - started };
  }
  return { explore, diagnose, releaseFullOutputs, exploreWith, entry: JSON.stringify(backend.entry) };
}

/**
 * For a test file of the catalogue: an empty PATH (every test names its fake through
 * PI_CODEGRAPH_BIN or a PATH of its own), an indexed workspace (`ws`), an empty dir, the mark;
 * after it, nothing marked may still run and no child may be left unreaped.
 */
export function useFaultsSuite() {
  const env = { ws: undefined, emptyDir: undefined };
  before(() => {
    setMark();
    env.emptyDir = tempDir("pi-codegraph-faults-empty-");
    process.env.PATH = env.emptyDir;
    delete process.env.PI_CODEGRAPH_BIN;
    env.ws = makeWorkspace();
  });
  after(async () => {
    process.env.PATH = saved.PATH;
    if (saved.BIN === undefined) delete process.env.PI_CODEGRAPH_BIN;
    else process.env.PI_CODEGRAPH_BIN = saved.BIN;
    try {
      await assertCleanProcessTable();
    } finally {
      restoreMark();
    }
  });
  return env;
}

/**
 * One topic of the catalogue for every backend: `describe("<id> backend: <title>")` whose body
 * gets that backend's calls (forBackend) and the backend itself.
 */
export function eachBackend(title, body) {
  for (const backend of backends) {
    describe(`${backend.id} backend: ${title}`, () => body(forBackend(backend), backend));
  }
}
