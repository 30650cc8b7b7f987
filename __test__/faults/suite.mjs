// The fault catalogue's harness: the backends every suite runs against, a clean environment per
// test file (an empty PATH, an indexed workspace, the process mark) with the final verdict on the
// process table, and explore()/diagnose() of one backend with a given executable.
import { createRequire } from "node:module";
import path from "node:path";
import { after, before } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, root, tempDir, withEnv } from "../helpers/index.mjs";
import { assertCleanProcessTable, restoreMark, setMark } from "../helpers/processes.mjs";

const require = createRequire(import.meta.url);

const all = [
  // The package: index.js over the native addon (the glue included).
  { id: "native", entry: path.join(root, "index.js") },
  // The plain-Node backend (explore/diagnose/releaseFullOutputs, the addon's shape).
  { id: "node", entry: path.join(root, "lib", "backends", "node", "index.js") },
];
/**
 * The Pi glue (createExtension) over each backend, from helpers/impl.mjs where it has one for
 * that id; the package's own index.js is the native backend's glue.
 */
const glueFrom = Object.fromEntries(
  implementations.filter((i) => typeof i.module?.createExtension === "function").map((i) => [i.id, i.module]),
);
const wanted = process.env.PI_CODEGRAPH_FAULTS_BACKEND;
if (wanted && !all.some((b) => b.id === wanted))
  throw new Error(`PI_CODEGRAPH_FAULTS_BACKEND=${wanted}: expected one of ${all.map((b) => b.id).join(", ")}`);

/** `{ id, entry, module, glue }` for each backend under test (PI_CODEGRAPH_FAULTS_BACKEND picks one). */
export const backends = all
  .filter((b) => !wanted || b.id === wanted)
  .map((b) => {
    const module = require(b.entry);
    const glue = glueFrom[b.id] ?? (typeof module.createExtension === "function" ? module : null);
    return { ...b, module, glue };
  });

/**
 * A named skip where the plain-Node backend cannot keep the addon's promise: `{ skip: "node
 * backend: <why>" }` for that backend, `{}` for the others.
 */
export const nodeCannot = (backend, why) => (backend.id === "node" ? { skip: `node backend: ${why}` } : {});

/** A test that needs the Pi glue (createExtension) over the backend. */
export const needsGlue = (backend) =>
  backend.glue
    ? {}
    : { skip: `${backend.id} backend: no Pi glue over it yet (helpers/impl.mjs has no createExtension for it)` };

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
