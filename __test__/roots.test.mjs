// Several CodeGraph roots in one session (issue 24), at the public seam with the fake CLI: a
// monorepo whose indexes live in packages/api and packages/web (helpers/roots.mjs), a workspace
// with its own index beside them, one root only, and an indexed project above the workspace added
// with `/codegraph roots add`. What the model sees (every tool's `project`: an enum of the
// labels, never a path), where each call runs (the fake's echo of its cwd), the line an answer
// from another root begins with, the argument errors (no CLI started), the labels following the
// indexes, `/codegraph roots` (list, add, remove, saved per project, completion), the verbs and
// the status per root, the parallel limit per root and the edits counted per root. Over the
// native addon and the Node runner.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "./helpers/impl.mjs";
import {
  fakeCli,
  isAlive,
  makeWorkspace,
  parseEcho,
  readJsonFile,
  readLog,
  rejectsWith,
  tempDir,
  useFakeCli,
  waitFor,
  withEnv,
} from "./helpers/index.mjs";
import { codegraphSaid, hostWith, recordingUi } from "./helpers/pi-host.mjs";
import { makeMonorepo, makeNested, makeProject, removeIndex, writeIndex } from "./helpers/roots.mjs";

const require = createRequire(import.meta.url);
// Where `/codegraph roots add` keeps a project's roots (Pi's agent directory, a file named by the project's path).
const { savedFile } = require("../lib/pi/tools/choice.js");

const EXPLORE = "codegraph_explore";
const TOOLS = [EXPLORE, "codegraph_node", "codegraph_relations", "codegraph_search"];
/** A valid call of each tool, without `project`. */
const PARAMS = {
  codegraph_explore: { request: "Cart" },
  codegraph_node: { symbol: "Cart" },
  codegraph_relations: { relation: "callers", symbol: "Cart" },
  codegraph_search: { name: "Cart" },
};
const API = ["packages/api", "packages/web"];
const pathLine = (label) =>
  `Project ${label} (${label}/): its paths are relative to that directory; for read, prefix them with ${label}/.`;
/** The path line of a root outside the workspace (`rel`: its path relative to the workspace, with "/"). */
const outsideLine = (label, dir, rel = "..") =>
  `Project ${label} (${dir}/): its paths are relative to that directory; for read, prefix them with ${dir}/ (or ${rel}/ from the workspace).`;

useFakeCli();
const savedEnv = {};
before(() => {
  for (const k of ["PI_CODING_AGENT_DIR", "PI_CODEGRAPH_TOOLS", "PI_CODEGRAPH_MAX_PARALLEL"])
    savedEnv[k] = process.env[k];
  // Added roots are saved in Pi's agent directory: never the user's own in a test.
  process.env.PI_CODING_AGENT_DIR = tempDir("pi-codegraph-agent-");
  delete process.env.PI_CODEGRAPH_TOOLS;
  delete process.env.PI_CODEGRAPH_MAX_PARALLEL;
});
after(() => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** The outcome of a promise: `{ value }` or `{ error }`. */
const settle = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

/** Runs `fn(log)` with the fake logging every CLI start ({ argv, cwd }); `log()` reads them (--version is not logged). */
async function logged(fn) {
  const file = path.join(tempDir("pi-codegraph-roots-log-"), "log.jsonl");
  return withEnv({ FAKE_CG_LOG: file }, () => fn(() => readLog(file)));
}

/** The answer's text split at its first line: `{ first, rest }`. */
function firstLine(text) {
  const i = text.indexOf("\n");
  return { first: text.slice(0, i), rest: text.slice(i + 1) };
}

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;

    /**
     * A Pi session in `cwd` with every focused tool on, after its first turn began (the scan for
     * the indexes below the workspace is awaited there); `env` is set while it starts.
     */
    async function session(cwd, { env = {}, hasUI = true, ...uiOptions } = {}) {
      const host = await hostWith(pkg, "roots");
      const ui = recordingUi(uiOptions);
      const ctx = { cwd, hasUI, ui };
      await withEnv({ PI_CODEGRAPH_TOOLS: "all", ...env }, async () => {
        await host.startSession(ctx);
        await host.beforeAgentStart(ctx);
      });
      const tool = (name = EXPLORE) => host.registry.find((t) => t.name === name);
      const call = (name, params, onUpdate) => settle(tool(name).execute("call-1", params, undefined, onUpdate, ctx));
      /** `/codegraph <args>`: what it said (every notification, joined). */
      const cg = (args) => codegraphSaid(host, ctx, args);
      const complete = (prefix) => host.commands.get("codegraph").getArgumentCompletions(prefix);
      const project = (name = EXPLORE) => tool(name).parameters.properties.project;
      const turn = () => host.beforeAgentStart(ctx);
      return { host, ui, ctx, tool, call, cg, complete, project, turn, slot: () => ui.statuses.get("codegraph") };
    }

    /** A tool's answer from a root other than the workspace: its first line, then the fake's echo. */
    function answerFrom(outcome) {
      if (outcome.error) assert.fail(outcome.error.message);
      const { first, rest } = firstLine(outcome.value.content[0].text);
      return { first, echo: parseEcho(rest), details: outcome.value.details };
    }

    /** The coded argument error of a refused call: its code, details and message. */
    function refused(outcome, code = "CODEGRAPH_INVALID_REQUEST") {
      assert.ok(outcome.error, "refused");
      assert.equal(outcome.error.code, code, outcome.error.message);
      return outcome.error;
    }

    describe("a monorepo: indexes in packages/api and packages/web, none of the workspace's own", () => {
      let ws;
      let s;
      before(async () => {
        ws = makeMonorepo();
        s = await session(ws);
      });

      for (const name of TOOLS) {
        test(`${name}: project is a required enum of the labels; a label runs the CLI there and the answer begins with the path line`, async () => {
          const schema = s.tool(name).parameters;
          assert.deepEqual(s.project(name).enum, API);
          assert.equal(s.project(name).type, "string");
          assert.ok(schema.required.includes("project"), JSON.stringify(schema.required));
          await logged(async (log) => {
            for (const label of API) {
              const a = answerFrom(await s.call(name, { ...PARAMS[name], project: label }));
              assert.equal(a.first, pathLine(label));
              assert.equal(a.echo.cwd, path.join(ws, label));
              assert.ok(
                !a.echo.argv.some((w) => w.includes("packages")),
                `the label is not an argument: ${a.echo.argv}`,
              );
              assert.deepEqual(a.details.project, { label, dir: path.join(ws, label) });
            }
            assert.deepEqual(
              log().map((r) => r.cwd),
              API.map((l) => path.join(ws, l)),
            );
          });
        });

        test(`${name}: without project, or with an unknown label or a path, it is refused and no CLI starts`, async () => {
          await logged(async (log) => {
            const none = refused(await s.call(name, PARAMS[name]));
            assert.deepEqual(none.details, { tool: name, argument: "project", rule: "required" });
            assert.match(none.message, /`project`: it is required: one of packages\/api, packages\/web\./);
            for (const bad of [
              "api",
              "/etc",
              "../x",
              "packages/api/../web",
              "packages/api/",
              ".",
              path.join(ws, "packages/api"),
            ]) {
              const e = refused(await s.call(name, { ...PARAMS[name], project: bad }));
              assert.deepEqual(e.details, { tool: name, argument: "project", rule: "enum" }, bad);
            }
            const notString = refused(await s.call(name, { ...PARAMS[name], project: ["packages/api"] }));
            assert.deepEqual(notString.details, { tool: name, argument: "project", rule: "notString" });
            assert.deepEqual(log(), [], "no CLI was started");
          });
        });
      }

      test("a failure from a root begins with the path line too (CodeGraph's words after it)", async () => {
        const { error } = await withEnv(
          { FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "3", FAKE_CG_STDERR: "boom in web\n" },
          () => s.call(EXPLORE, { request: "Cart", project: "packages/web" }),
        );
        assert.equal(error.code, "CODEGRAPH_EXIT", error.message);
        const { first, rest } = firstLine(error.message);
        assert.equal(first, pathLine("packages/web"));
        assert.match(rest, /^CODEGRAPH_EXIT: /);
        assert.match(rest, /boom in web/);
      });

      test("the exported API is as it was: explore(request, cwd) runs in cwd, with no path line and no project", async () => {
        const api = path.join(ws, "packages", "api");
        const r = await pkg.explore("Cart", api);
        assert.deepEqual(parseEcho(r.text), { argv: ["explore", "--", "Cart"], cwd: api });
        assert.equal(r.details.project, undefined);
        await rejectsWith(pkg.explore("Cart", ws), "CODEGRAPH_NO_INDEX");
        const e = await rejectsWith(
          pkg.node({ symbol: "Cart", project: "packages/web" }, api),
          "CODEGRAPH_INVALID_REQUEST",
        );
        assert.deepEqual(e.details, { tool: "codegraph_node", argument: "project", rule: "unknown" });
      });

      test("the status slot says 2 projects; /codegraph lists each project's directory and readiness, and says ready", async () => {
        assert.equal(s.slot(), "⬡ codegraph · 2 projects");
        const report = (await s.cg("")).split("\n");
        assert.equal(report[0], "pi-codegraph: ready");
        assert.deepEqual(
          report.filter((l) => l.startsWith("project ")),
          API.map((l) => `project ${l}: ${path.join(ws, l)} (ready)`),
        );
        assert.ok(report.includes(`workspace: ${ws}`));
      });

      test("/codegraph roots lists the labels, directories, sources and readiness, and what the scan did", async () => {
        const lines = (await s.cg("roots")).split("\n");
        assert.deepEqual(lines.slice(0, 3), [
          "CodeGraph roots: 2 (the tools take `project`: one of the labels)",
          `  packages/api  ${path.join(ws, "packages/api")}  found below the workspace; ready`,
          `  packages/web  ${path.join(ws, "packages/web")}  found below the workspace; ready`,
        ]);
        assert.match(lines[3], /^scan: 2 found below the workspace, \d+ directories read in \d+ ms \(depth ≤ 4\)$/);
        assert.equal(
          lines[4],
          "Add one with /codegraph roots add <dir>; remove one you added with /codegraph roots remove <label>.",
        );
        assert.equal(lines.length, 5);
        assert.equal(s.ui.notes.at(-1).type, "info");
      });

      test("/codegraph roots remove: a scanned root is refused, an unknown label too; nothing changes", async () => {
        assert.equal(
          await s.cg("roots remove packages/api"),
          "/codegraph roots remove: packages/api was not added by you (found below the workspace); only added roots can be removed.",
        );
        assert.equal(
          await s.cg("roots remove nope"),
          '/codegraph roots remove: no root is labelled "nope" (you have added none).',
        );
        assert.equal(await s.cg("roots remove"), "/codegraph roots remove: give the label of a root you added.");
        assert.deepEqual(s.project().enum, API);
      });

      test("completion: `roots ` offers add and remove; `roots add` completes directories, saying which have an index", async () => {
        assert.deepEqual(
          (await s.complete("roots ")).map((i) => i.value),
          ["roots add", "roots remove"],
        );
        assert.deepEqual(
          (await s.complete("roots r")).map((i) => i.value),
          ["roots remove"],
        );
        assert.deepEqual(await s.complete("roots add pack"), [{ value: "roots add packages/", label: "packages/" }]);
        assert.deepEqual(await s.complete("roots add packages/"), [
          { value: "roots add packages/api/", label: "packages/api/", description: "has a CodeGraph index" },
          { value: "roots add packages/web/", label: "packages/web/", description: "has a CodeGraph index" },
        ]);
        assert.deepEqual(
          (await s.complete("roots add packages/w")).map((i) => i.value),
          ["roots add packages/web/"],
        );
        assert.equal(await s.complete("roots remove "), null, "no root was added");
      });

      test("verbs per root: status and sync run in the labelled root; without a label or with an unknown one nothing runs", async () => {
        await logged(async (log) => {
          const api = path.join(ws, "packages", "api");
          const status = await s.cg("status packages/api");
          assert.deepEqual(log(), [{ ...log()[0], argv: ["status", "--json"], cwd: api }]);
          assert.equal(status.split("\n")[0], `Project packages/api (${api}):`);
          assert.match(status, /7 files, 43 nodes, 81 edges/);

          const sync = await s.cg("sync packages/api");
          assert.deepEqual(
            log().map((r) => [r.argv[0], r.cwd]),
            [
              ["status", api],
              ["sync", api],
            ],
          );
          assert.equal(sync.split("\n")[0], `Project packages/api (${api}):`);
          assert.match(sync, /\/codegraph sync: done in \d+\.\d s/);

          assert.equal(
            await s.cg("sync"),
            "/codegraph sync: name the project, one of: packages/api, packages/web (e.g. /codegraph sync packages/api). Nothing was run.",
          );
          assert.equal(
            await s.cg("status"),
            "/codegraph status: name the project, one of: packages/api, packages/web (e.g. /codegraph status packages/api). Nothing was run.",
          );
          assert.equal(
            await s.cg("sync packages/nope"),
            '/codegraph sync: no project is labelled "packages/nope"; the projects: packages/api, packages/web. Nothing was run.',
          );
          assert.equal(log().length, 2, "nothing more ran");
        });
      });

      test("verb completion: after a verb, the labels", () => {
        assert.deepEqual(
          s.complete("sync ").map((i) => [i.value, i.description]),
          API.map((l) => [`sync ${l}`, path.join(ws, l)]),
        );
        assert.deepEqual(
          s.complete("status packages/w").map((i) => i.value),
          ["status packages/web"],
        );
        assert.equal(s.complete("sync packages/web"), null, "a label typed in full: Enter runs it");
      });
    });

    test("/codegraph cancel stops a write running in a root (its CLI's tree), named by label or alone", async () => {
      const ws = makeMonorepo();
      const s = await session(ws, { custom: "none" });
      for (const [label, cancel] of [
        ["packages/web", "cancel packages/web"],
        ["packages/api", "cancel"],
      ]) {
        const gate = tempDir("pi-codegraph-gate-");
        await withEnv({ FAKE_CG_GATE: gate }, async () => {
          const running = s.cg(`sync ${label} --yes`);
          const pids = await waitFor(() => readJsonFile(path.join(gate, "started.json")), {
            what: "the sync to start",
          });
          const other = API.find((l) => l !== label);
          assert.equal(
            await s.cg(`cancel ${other}`),
            `/codegraph cancel: no /codegraph write is running in project ${other}.`,
            "another root's cancel stops nothing",
          );
          assert.equal(isAlive(pids.self), true);
          assert.equal(await s.cg(cancel), "/codegraph cancel: stopping /codegraph sync…");
          await running;
          const said = s.ui.notes.at(-1).message;
          assert.equal(said.split("\n")[0], `Project ${label} (${path.join(ws, label)}):`);
          assert.match(
            said,
            /^\/codegraph sync: cancelled after \d+\.\d s; CodeGraph and its processes were stopped\.$/m,
          );
          await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
            what: "the sync's tree to be gone",
          });
        });
      }
      assert.equal(await s.cg("cancel"), "/codegraph cancel: no /codegraph write is running in this workspace.");
    });

    describe("the workspace's own index beside sub-project indexes", () => {
      let ws;
      let s;
      before(async () => {
        ws = makeMonorepo({ own: true });
        s = await session(ws);
      });

      for (const name of TOOLS) {
        test(`${name}: project is optional, "." first; omitted or "." runs in the workspace with no path line`, async () => {
          assert.deepEqual(s.project(name).enum, [".", ...API]);
          assert.ok(!(s.tool(name).parameters.required ?? []).includes("project"));
          const omitted = await s.call(name, PARAMS[name]);
          const dot = await s.call(name, { ...PARAMS[name], project: "." });
          assert.equal(parseEcho(omitted.value.content[0].text).cwd, ws);
          assert.equal(dot.value.content[0].text, omitted.value.content[0].text, "byte-identical");
          assert.equal(omitted.value.details.project, undefined);
          assert.equal(dot.value.details.project, undefined);
          const web = answerFrom(await s.call(name, { ...PARAMS[name], project: "packages/web" }));
          assert.equal(web.first, pathLine("packages/web"));
          assert.equal(web.echo.cwd, path.join(ws, "packages/web"));
        });
      }

      test("explore's answer without project is the one explore() gives in the workspace, byte for byte", async () => {
        const plain = await pkg.explore("Cart", ws);
        const { value } = await s.call(EXPLORE, { request: "Cart" });
        assert.equal(value.content[0].text, plain.text);
      });

      test("the slot says 3 projects; verbs without a label act on the workspace's own index", async () => {
        assert.equal(s.slot(), "⬡ codegraph · 3 projects");
        await logged(async (log) => {
          const said = await s.cg("status");
          assert.deepEqual(
            log().map((r) => [r.argv[0], r.cwd]),
            [["status", ws]],
          );
          assert.doesNotMatch(said, /^Project /);
        });
      });
    });

    describe("one root only", () => {
      test("no root at all: project is an argument no tool has; nothing runs", async () => {
        const s = await session(makeWorkspace({ index: false }));
        await logged(async (log) => {
          for (const name of TOOLS) {
            assert.equal(s.project(name), undefined, name);
            const e = refused(await s.call(name, { ...PARAMS[name], project: "." }));
            assert.equal(e.details.argument, "project", name);
            assert.equal(e.details.rule, "unknown", name);
          }
          assert.deepEqual(log(), []);
        });
      });

      test("a workspace indexed alone: no project, and the tools' words are those of a plain workspace", async () => {
        const mono = await session(makeMonorepo({ own: true, projects: [] }));
        const plain = await session(makeWorkspace());
        for (const name of TOOLS) {
          const a = mono.tool(name);
          const b = plain.tool(name);
          assert.equal(a.parameters.properties.project, undefined, name);
          for (const key of ["description", "promptSnippet", "promptGuidelines", "parameters"])
            assert.deepEqual(JSON.stringify(a[key]), JSON.stringify(b[key]), `${name} ${key}`);
        }
        assert.equal(mono.slot(), "⬡ codegraph");
        const e = refused(await mono.call(EXPLORE, { request: "Cart", project: "packages/api" }));
        assert.deepEqual(e.details, { tool: EXPLORE, argument: "project", rule: "enum" });
      });

      test("no index of the workspace's own and one below it: no project, every call runs there with the path line", async () => {
        const ws = makeMonorepo({ projects: ["packages/api"] });
        const s = await session(ws);
        const api = path.join(ws, "packages", "api");
        for (const name of TOOLS) {
          assert.equal(s.project(name), undefined, name);
          assert.ok(!s.tool(name).promptGuidelines?.some((g) => /Several CodeGraph projects/.test(g)), name);
          const a = answerFrom(await s.call(name, PARAMS[name]));
          assert.equal(a.first, pathLine("packages/api"));
          assert.equal(a.echo.cwd, api);
          // Passed anyway: its own label is accepted, any other refused.
          assert.equal(answerFrom(await s.call(name, { ...PARAMS[name], project: "packages/api" })).echo.cwd, api);
          for (const other of ["packages/web", "."]) {
            const e = refused(await s.call(name, { ...PARAMS[name], project: other }));
            assert.deepEqual(e.details, { tool: name, argument: "project", rule: "enum" });
          }
        }
        assert.equal(s.slot(), "⬡ codegraph · packages/api");
        const report = (await s.cg("")).split("\n");
        assert.equal(report[0], "pi-codegraph: ready");
        assert.deepEqual(
          report.filter((l) => l.startsWith("project ")),
          [`project packages/api: ${api} (ready)`],
        );
        await logged(async (log) => {
          await s.cg("status");
          assert.deepEqual(
            log().map((r) => [r.argv[0], r.cwd]),
            [["status", api]],
            "the only root, without a label",
          );
        });
      });
    });

    describe("a label is the only way the model selects a root", () => {
      let ws;
      let s;
      const all = [".", ...API];
      before(async () => {
        ws = makeMonorepo({ own: true });
        s = await session(ws);
      });

      test("schema: no property but project names a root, and it is an enum of the labels; the other properties are the tool's own", () => {
        const own = {
          codegraph_explore: ["request"],
          codegraph_node: ["symbol", "file", "offset", "limit", "outline"],
          codegraph_relations: ["relation", "symbol", "file", "limit", "depth"],
          codegraph_search: ["name", "kind", "limit"],
        };
        for (const name of TOOLS) {
          const { properties } = s.tool(name).parameters;
          assert.deepEqual(Object.keys(properties), [...own[name], "project"], name);
          assert.deepEqual(s.project(name).enum, all);
          assert.deepEqual(
            Object.keys(s.project(name))
              .filter((k) => !["type", "enum", "description"].includes(k) && typeof k === "string")
              .sort(),
            [],
            `${name}: project is a plain enum (no pattern, no format)`,
          );
          // No other property is a root's name or a place: none is an enum of the labels, none is named as one.
          for (const [key, prop] of Object.entries(properties)) {
            if (key === "project") continue;
            assert.doesNotMatch(key, /cwd|dir|path|root|project|workspace/i, `${name}.${key}`);
            assert.ok(!(prop.enum ?? []).some((v) => all.includes(v)), `${name}.${key}`);
          }
        }
      });

      test("Pi's validator refuses a path as project and accepts a label", async () => {
        const { validateToolArguments } = await import("@mariozechner/pi-ai");
        for (const name of TOOLS) {
          const check = (args) =>
            validateToolArguments(s.tool(name), { type: "toolCall", id: "1", name, arguments: args });
          for (const bad of ["/etc", "../x", "packages/api/../web", ws, "packages"])
            assert.throws(() => check({ ...PARAMS[name], project: bad }), /project/, `${name} ${bad}`);
          assert.deepEqual(check({ ...PARAMS[name], project: "packages/web" }), {
            ...PARAMS[name],
            project: "packages/web",
          });
        }
      });

      test("the tools' free strings and extra keys (cwd, path, root, projectPath) never change where CodeGraph runs", async () => {
        const web = path.join(ws, "packages", "web");
        const extras = { cwd: web, path: web, root: web, projectPath: web, dir: "packages/web" };
        const { validateToolArguments } = await import("@mariozechner/pi-ai");
        await logged(async (log) => {
          // Pi's validator lets extra keys through; explore takes its request only: they are ignored.
          const args = validateToolArguments(s.tool(), {
            type: "toolCall",
            id: "1",
            name: EXPLORE,
            arguments: { request: web, project: "packages/api", ...extras },
          });
          assert.deepEqual(args, { request: web, project: "packages/api", ...extras });
          const a = answerFrom(await s.call(EXPLORE, args));
          assert.equal(a.echo.cwd, path.join(ws, "packages/api"));
          const b = await s.call(EXPLORE, { request: "packages/web", ...extras });
          assert.equal(parseEcho(b.value.content[0].text).cwd, ws);
          // A focused tool refuses a key it does not have, before any CLI starts.
          for (const name of TOOLS.slice(1)) {
            for (const key of Object.keys(extras)) {
              const e = refused(await s.call(name, { ...PARAMS[name], project: "packages/api", [key]: web }));
              assert.deepEqual(e.details, { tool: name, argument: key, rule: "unknown" }, `${name} ${key}`);
            }
          }
          // A file key naming the other root is a lookup key in the chosen root, or refused.
          const abs = refused(
            await s.call("codegraph_node", { file: path.join(web, "src/index.ts"), project: "packages/api" }),
          );
          assert.equal(abs.details.rule, "absolute");
          const up = refused(await s.call("codegraph_node", { file: "../web/src/index.ts", project: "packages/api" }));
          assert.equal(up.details.rule, "parent");
          const key = answerFrom(
            await s.call("codegraph_node", { file: "packages/web/src/index.ts", project: "packages/api" }),
          );
          assert.equal(key.echo.cwd, path.join(ws, "packages/api"));
          assert.deepEqual(
            log().map((r) => r.cwd),
            [path.join(ws, "packages/api"), ws, path.join(ws, "packages/api")],
          );
        });
      });
    });

    test("labels change, the tools are registered again: a new index found by /codegraph roots, one removed, the workspace's own", async () => {
      const ws = makeMonorepo();
      const s = await session(ws);
      assert.deepEqual(s.project().enum, API);
      makeProject(path.join(ws, "packages", "lib"));
      await s.turn();
      assert.deepEqual(s.project().enum, API, "a turn does not scan again");
      const before = s.tool("codegraph_search");
      await s.cg("roots");
      for (const name of TOOLS)
        assert.deepEqual(s.project(name).enum, ["packages/api", "packages/lib", "packages/web"]);
      assert.notEqual(s.tool("codegraph_search"), before, "registered again");
      assert.equal(s.slot(), "⬡ codegraph · 3 projects");

      removeIndex(path.join(ws, "packages", "web"));
      await s.turn();
      for (const name of TOOLS) assert.deepEqual(s.project(name).enum, ["packages/api", "packages/lib"]);

      writeIndex(ws);
      await s.turn();
      for (const name of TOOLS) {
        assert.deepEqual(s.project(name).enum, [".", "packages/api", "packages/lib"]);
        assert.ok(!(s.tool(name).parameters.required ?? []).includes("project"), name);
      }
      assert.match(s.tool().promptGuidelines.join("\n"), /the workspace's own, \., when omitted/);
    });

    describe("/codegraph roots add: an indexed project above the workspace", () => {
      test("added by a relative path: labelled by its path from the workspace (../../django), calls run there and begin with the absolute path line", async () => {
        const { project, ws } = makeNested("django");
        const s = await session(ws);
        assert.equal(s.project(), undefined);
        assert.equal(
          await s.cg("roots add .."),
          `Added ../../django (${project}): the codegraph tools can now ask it by that label; kept for this project.`,
        );
        assert.equal(s.ui.notes.at(-1).type, "info");
        assert.equal(s.project(), undefined, "one root: no project");
        assert.equal(s.slot(), "⬡ codegraph · ../../django");
        for (const name of TOOLS) {
          const a = answerFrom(await s.call(name, PARAMS[name]));
          assert.equal(a.first, outsideLine("../../django", project));
          assert.equal(a.echo.cwd, project);
          assert.deepEqual(a.details.project, { label: "../../django", dir: project });
        }
        const list = (await s.cg("roots")).split("\n");
        assert.deepEqual(list.slice(0, 2), ["CodeGraph roots: 1", `  ../../django  ${project}  added by you; ready`]);
        assert.deepEqual(
          (await s.complete("roots remove ")).map((i) => i.value),
          ["roots remove ../../django"],
        );
      });

      test("absolute, ~-prefixed (HOME) and quoted paths with spaces are the same directory; refusals say why and add nothing", async () => {
        const home = tempDir("pi-codegraph-home-");
        const project = makeProject(path.join(home, "my proj"));
        const ws = path.join(project, "app");
        fs.mkdirSync(ws);
        // A space is no label's: the end of the path and the directory's hash.
        const myProj = `../…/my_proj~${createHash("sha256").update(project).digest("hex").slice(0, 8)}`;
        await withEnv({ HOME: home }, async () => {
          for (const typed of [`"${project}"`, "'~/my proj'", '"../../my proj"']) {
            const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
            assert.equal(
              await s.cg(`roots add ${typed}`),
              `Added ${myProj} (${project}): the codegraph tools can now ask it by that label; kept for this project.`,
              typed,
            );
            const a = answerFrom(await s.call(EXPLORE, { request: "Cart" }));
            assert.equal(a.first, outsideLine(myProj, project));
            assert.equal(a.echo.cwd, project);
          }
        });
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        const file = path.join(ws, "notes.txt");
        fs.writeFileSync(file, "x");
        const bare = tempDir("pi-codegraph-bare-");
        const say = (why) => `/codegraph roots add: nothing added: ${why}.`;
        assert.equal(await s.cg("roots add"), say("give the directory: /codegraph roots add <dir>"));
        assert.equal(await s.cg("roots add notes.txt"), say(`${file} is not a directory`));
        assert.equal(await s.cg("roots add missing"), say(`${path.join(ws, "missing")} is not a directory`));
        assert.equal(
          await s.cg(`roots add ${bare}`),
          say(
            `${bare} has no CodeGraph index (.codegraph/codegraph.db): run \`codegraph init\` there first, or give the project's root`,
          ),
        );
        assert.equal(s.ui.notes.at(-1).type, "warning");
        await s.cg(`roots add ${project}`);
        assert.equal(await s.cg("roots add .."), say(`${project} is already a root (${myProj})`));
        assert.deepEqual(
          (await s.complete("roots remove ")).map((i) => [i.value, i.description]),
          [[`roots remove ${myProj}`, project]],
        );
        assert.equal(await s.cg(`roots remove ${myProj}`), `Removed ${myProj} (${project}).`);
        assert.equal(
          await s.cg(`roots remove ${myProj}`),
          `/codegraph roots remove: no root is labelled "${myProj}" (you have added none).`,
        );
        await rejectsWith(
          s.call(EXPLORE, { request: "Cart" }).then((o) => (o.error ? Promise.reject(o.error) : o.value)),
          "CODEGRAPH_NO_INDEX",
        );
      });

      test("at most 16 added roots (a saved list of 16 gives 16 labels); a root far from the workspace: its relative path in the line", async () => {
        const { ws } = makeNested("site");
        const agentDir = tempDir("pi-codegraph-agent-");
        const base = tempDir("pi-codegraph-many-");
        const dirs = Array.from({ length: 17 }, (_, i) =>
          makeProject(path.join(base, `p${String(i).padStart(2, "0")}`)),
        );
        fs.mkdirSync(path.dirname(savedFile(agentDir, ws, "roots")), { recursive: true });
        fs.writeFileSync(savedFile(agentDir, ws, "roots"), JSON.stringify({ roots: dirs.slice(0, 16) }));
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: agentDir } });
        const labels = dirs.map((d) => path.relative(ws, d));
        assert.deepEqual(s.project().enum, labels.slice(0, 16));
        assert.ok(s.tool().parameters.required.includes("project"));
        assert.equal(
          await s.cg(`roots add ${dirs[16]}`),
          "/codegraph roots add: nothing added: at most 16 roots can be added to one project.",
        );
        const a = answerFrom(await s.call(EXPLORE, { request: "Cart", project: labels[3] }));
        assert.equal(a.first, outsideLine(labels[3], dirs[3], labels[3]));
        assert.equal(a.echo.cwd, dirs[3]);
      });

      test("two added roots with one base name: each labelled by its own path from the workspace; a directory below the workspace the scan skips: its relative path", async () => {
        const { project, ws } = makeNested("django");
        const twin = makeProject(path.join(tempDir("pi-codegraph-twin-"), "django"));
        const vendored = makeProject(path.join(ws, "vendor", "lib"));
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        assert.equal(s.project(), undefined, "the scan skips vendor/");
        await s.cg("roots add ..");
        const twinLabel = path.relative(ws, twin);
        assert.equal(
          await s.cg(`roots add ${twin}`),
          `Added ${twinLabel} (${twin}): the codegraph tools can now ask it by that label; kept for this project.`,
        );
        assert.equal(
          await s.cg("roots add vendor/lib"),
          `Added vendor/lib (${vendored}): the codegraph tools can now ask it by that label; kept for this project.`,
        );
        assert.deepEqual(s.project().enum, ["../../django", twinLabel, "vendor/lib"]);
        assert.ok(s.tool().parameters.required.includes("project"));
        const twinAnswer = answerFrom(await s.call(EXPLORE, { request: "Cart", project: twinLabel }));
        assert.equal(twinAnswer.first, outsideLine(twinLabel, twin, twinLabel));
        assert.equal(twinAnswer.echo.cwd, twin);
        const inside = answerFrom(await s.call(EXPLORE, { request: "Cart", project: "vendor/lib" }));
        assert.equal(inside.first, pathLine("vendor/lib"));
        assert.equal(inside.echo.cwd, vendored);
        assert.equal(answerFrom(await s.call(EXPLORE, { request: "Cart", project: "../../django" })).echo.cwd, project);
        assert.deepEqual(
          (await s.complete("roots remove ../")).map((i) => i.value),
          ["roots remove ../../django", `roots remove ${twinLabel}`],
        );
      });

      test("a directory below the workspace whose name starts with two dots (..cache) is inside it: its relative path is its label and its prefix", async () => {
        const { ws } = makeNested("django");
        const cache = makeProject(path.join(ws, "..cache"));
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        assert.equal(
          await s.cg("roots add ..cache"),
          `Added ..cache (${cache}): the codegraph tools can now ask it by that label; kept for this project.`,
        );
        const a = answerFrom(await s.call(EXPLORE, { request: "Cart" }));
        assert.equal(a.first, pathLine("..cache"));
        assert.equal(a.echo.cwd, cache);
      });

      test("kept per project across sessions; another workspace does not see it; a corrupt saved file is ignored and said", async () => {
        const { project, ws } = makeNested("django");
        const agentDir = tempDir("pi-codegraph-agent-");
        const env = { env: { PI_CODING_AGENT_DIR: agentDir } };
        const first = await session(ws, env);
        await first.cg("roots add ..");
        assert.deepEqual(readJsonFile(savedFile(agentDir, ws, "roots")).roots, [project]);

        const again = await session(ws, env);
        assert.equal(answerFrom(await again.call(EXPLORE, { request: "Cart" })).echo.cwd, project);
        assert.equal(again.slot(), "⬡ codegraph · ../../django");

        const other = path.join(project, "other");
        fs.mkdirSync(other);
        const elsewhere = await session(other, env);
        assert.equal(elsewhere.slot(), "⬡ codegraph: no index here (parent project has one)");
        assert.equal(
          (await elsewhere.cg("roots")).split("\n")[0],
          "CodeGraph roots: none (no index in the workspace, none found below it, none added)",
        );

        fs.writeFileSync(savedFile(agentDir, ws, "roots"), "{not json");
        const corrupt = await session(ws, env);
        assert.equal(corrupt.project(), undefined);
        const lines = (await corrupt.cg("roots")).split("\n");
        assert.equal(lines[0], "CodeGraph roots: none (no index in the workspace, none found below it, none added)");
        assert.ok(
          lines.includes(`saved roots ignored: ${savedFile(agentDir, ws, "roots")}: not JSON`),
          lines.join("\n"),
        );

        fs.writeFileSync(savedFile(agentDir, ws, "roots"), JSON.stringify({ roots: ["relative/dir", project] }));
        const handEdited = await session(ws, env);
        assert.equal(answerFrom(await handEdited.call(EXPLORE, { request: "Cart" })).echo.cwd, project);
      });

      test("a save that fails (the agent directory is a file): the root is added for this session, and that is said", async () => {
        const { project, ws } = makeNested("django");
        const notADir = path.join(tempDir("pi-codegraph-agent-"), "file");
        fs.writeFileSync(notADir, "");
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: notADir } });
        assert.equal(
          await s.cg("roots add .."),
          `Added ../../django (${project}): the codegraph tools can now ask it by that label; for this session only: it could not be saved (ENOTDIR).`,
        );
        assert.equal(s.ui.notes.at(-1).type, "warning");
        assert.equal(answerFrom(await s.call(EXPLORE, { request: "Cart" })).echo.cwd, project);
        assert.equal(
          await s.cg("roots remove ../../django"),
          `Removed ../../django (${project}); for this session only: it could not be saved (ENOTDIR).`,
        );
      });
    });

    test("the parallel limit is per root: a call hanging in packages/api holds back the next one there, not one in packages/web", async () => {
      const ws = makeMonorepo();
      const dir = tempDir("pi-codegraph-gate-");
      const cli = fakeCli([
        ["cwd", null],
        ["gate", dir],
      ]);
      const started = () =>
        fs.existsSync(`${dir}/started`) ? fs.readFileSync(`${dir}/started`, "utf8").split("\n").filter(Boolean) : [];
      await withEnv({ PI_CODEGRAPH_BIN: cli.file, PI_CODEGRAPH_MAX_PARALLEL: "1" }, async () => {
        const s = await session(ws);
        const calls = [];
        try {
          const a1 = s.call(EXPLORE, { request: "A1", project: "packages/api" });
          calls.push(a1);
          await waitFor(() => started().includes("A1"), { what: "A1 to start" });
          const heard = [];
          const a2 = s.call(EXPLORE, { request: "A2", project: "packages/api" }, (u) => heard.push(u.details));
          calls.push(a2);
          await waitFor(() => heard.some((d) => d.queued), { what: "A2 to be queued" });
          assert.deepEqual(
            heard.filter((d) => d.queued).map((d) => [d.ahead, d.limit]),
            [[1, 1]],
          );
          const w1 = s.call(EXPLORE, { request: "W1", project: "packages/web" });
          calls.push(w1);
          await waitFor(() => started().includes("W1"), { what: "W1 to start beside A1" });
          fs.writeFileSync(`${dir}/W1.go`, "");
          const web = await w1;
          assert.equal(
            web.value.content[0].text,
            `${pathLine("packages/web")}\n${JSON.stringify({ cwd: path.join(ws, "packages/web") })}\nanswer: W1\n`,
          );
          assert.deepEqual(started(), ["A1", "W1"], "A2 still waits for A1");
          fs.writeFileSync(`${dir}/A1.go`, "");
          await waitFor(() => started().includes("A2"), { what: "A2 to start after A1" });
          fs.writeFileSync(`${dir}/A2.go`, "");
          const [one, two] = await Promise.all([a1, a2]);
          assert.match(one.value.content[0].text, /answer: A1\n$/);
          assert.match(two.value.content[0].text, /answer: A2\n$/);
          assert.ok(two.value.details.queueMs > 0);
          assert.equal(one.value.details.parallelLimit, 1);
        } finally {
          fs.writeFileSync(`${dir}/all.go`, "");
          await Promise.all(calls);
        }
      });
    });

    test("edits are counted per root: one in packages/api after its index counts; its newer index drops it; one outside every root is not counted", async () => {
      const ws = makeMonorepo();
      const past = Date.now() / 1000 - 120;
      for (const p of API) fs.utimesSync(path.join(ws, p, ".codegraph", "codegraph.db"), past, past);
      fs.mkdirSync(path.join(ws, "tools"));
      const s = await session(ws);
      assert.equal(s.slot(), "⬡ codegraph · 2 projects");
      const edit = (p) =>
        s.host.toolResult({ toolName: "edit", input: { path: p, oldText: "a", newText: "b" } }, s.ctx);

      await edit("tools/x.ts");
      await edit(path.join(tempDir("pi-codegraph-outside-"), "y.ts"));
      assert.equal(s.slot(), "⬡ codegraph · 2 projects", "outside every root: not counted");
      await edit("packages/api/src/x.ts");
      assert.equal(s.slot(), "⬡ codegraph · 2 projects · 1 file edited since the index");
      await s.turn();
      assert.equal(
        s.slot(),
        "⬡ codegraph · 2 projects · 1 file edited since the index",
        "packages/api's index is older",
      );
      assert.equal(
        (await s.cg("")).split("\n")[0],
        "pi-codegraph: ready, 1 file changed since the index (edited in this session)",
      );

      // packages/web's index written: the edit in packages/api still counts.
      const later = Date.now() / 1000 + 60;
      fs.utimesSync(path.join(ws, "packages/web/.codegraph/codegraph.db"), later, later);
      await s.turn();
      assert.equal(s.slot(), "⬡ codegraph · 2 projects · 1 file edited since the index");
      fs.utimesSync(path.join(ws, "packages/api/.codegraph/codegraph.db"), later, later);
      await s.turn();
      assert.equal(s.slot(), "⬡ codegraph · 2 projects");
    });
  });
}
