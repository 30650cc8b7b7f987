// The fault catalogue's harness: the runners and the calls every suite runs against, a clean
// environment per test file (an empty PATH, an indexed workspace, the process mark) with the final
// verdict on the process table, and the call under test/diagnose() of one runner with a given
// executable. The call: explore(), the runner-level contract's one way in (a topic may add a
// focused tool, adapted to take the test's request as its one text argument, for what that tool
// itself adds; what differs per tool is proven at the seam, __test__/seam/tools-seam.test.mjs).
import os from "node:os";
import { after, before, describe } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { assertCleanProcessTable, restoreMark, setMark } from "../helpers/processes.mjs";
import { ALL_TOOLS, calleeOf, glueOf, toolCall } from "../helpers/tools.mjs";

/**
 * Each runner under test, from helpers/impl.mjs (PI_CODEGRAPH_IMPL=native|node picks one):
 * `{ id, entry, module, differs }`; `differs(why)` is the named skip where the Node
 * runner cannot keep the addon's promise. `module` is the package's glue over that runner
 * (explore/diagnose/releaseFullOutputs/createExtension); `entry` is what a child script
 * requires for explore/diagnose (index.js for native, lib/runners/node for node).
 */
export const runners = implementations;
export { ALL_TOOLS, toolCall };

/**
 * Runs `body` with the machine's load read as 0. A timeout's words name the load when it is above
 * the cores (lib/words/messages.js), read by the glue at each failure; tests that compare two
 * runs' words hold it, so both come from the same facts whatever else the machine is doing.
 */
export async function onQuietMachine(body) {
  const loadavg = os.loadavg;
  os.loadavg = () => [0, 0, 0];
  try {
    return await body();
  } finally {
    os.loadavg = loadavg;
  }
}

export const saved = { PATH: process.env.PATH, BIN: process.env.PI_CODEGRAPH_BIN };

/**
 * The calls of `runner` for one tool (toolCall; explore by default): `explore(request, cwd,
 * signal, options)` is the call under test (explore itself, or the focused tool with the request
 * as its text), `exploreWith(bin, …)` times it, `diagnose`, `releaseFullOutputs`, `entry` (what a
 * child script requires, JSON), `glue`: the package's glue over it as a JS expression for a child
 * script, `callee`: the call under test as a JS expression (over `glue`), `tool`
 * (toolCall) and `toolEnv` (what a host script of helpers/ needs to make the same call).
 */
export function forRunner(runner, tool = toolCall("explore")) {
  const { diagnose, releaseFullOutputs } = runner.module;
  const explore = tool.adapt(runner.module);
  const entry = JSON.stringify(runner.entry);
  const callee = calleeOf(tool, runner);
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
  const glue = glueOf(runner);
  return { explore, diagnose, releaseFullOutputs, exploreWith, entry, glue, callee, tool, toolEnv: tool.env };
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
 * One topic of the catalogue for every runner: `describe("<id> runner, <tool>: <title>")` whose
 * body gets that runner's calls for that tool (forRunner) and the runner itself. The topics are
 * the runner-level contract, proven once per runner through explore (`tools` defaults to
 * ["explore"]): the focused tools reach the same run() with their own command description, and
 * what differs per tool (description, caps, argument rules, words) is proven at that seam by
 * __test__/seam/tools-seam.test.mjs (a recording stub over both runners) and against the real CLI by
 * tools-real.test.mjs. A topic that also runs a focused tool (glue names in `tools`) does so for
 * what that tool itself adds, and says which tests those are.
 */
export function eachRunner(title, body, { tools = ["explore"] } = {}) {
  for (const runner of runners) {
    for (const glue of tools) {
      const tool = toolCall(glue);
      describe(`${runner.id} runner, ${tool.label}: ${title}`, () => body(forRunner(runner, tool), runner));
    }
  }
}
