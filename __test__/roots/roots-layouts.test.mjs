// Several CodeGraph roots in one session (issue 24), at the public seam with the fake CLI
// (the session and its helpers: helpers/roots-session.mjs). Over the native addon and the Node
// runner.
// This file: a workspace with its own index beside sub-project indexes, one root only, a label as
// the only way the model selects a root (the argument errors: no CLI started), and the labels
// following the indexes (the tools registered again).
import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, parseEcho } from "../helpers/index.mjs";
import { makeMonorepo, makeProject, removeIndex, writeIndex } from "../helpers/roots.mjs";
import {
  API,
  answerFrom,
  EXPLORE,
  logged,
  PARAMS,
  pathLine,
  refused,
  rootsSession,
  TOOLS,
  useRootsEnv,
} from "../helpers/roots-session.mjs";

useRootsEnv();

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;
    const session = (cwd, options) => rootsSession(pkg, cwd, options);

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
        const report = (await s.cg("doctor")).split("\n");
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
          codegraph_relations: ["relation", "symbol", "file", "limit", "depth", "from", "to"],
          codegraph_search: ["name", "kind", "limit"],
        };
        for (const name of TOOLS) {
          const { properties } = s.tool(name).parameters;
          assert.deepEqual(Object.keys(properties), [...own[name], "project"], name);
          assert.deepEqual(s.project(name).enum, all);
          assert.deepEqual(
            Object.keys(s.project(name))
              // TypeBox's own markers ("~optional") are its bookkeeping, not the schema's words.
              .filter((k) => !["type", "enum", "description"].includes(k) && !k.startsWith("~"))
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
        const { validateToolArguments } = await import("@earendil-works/pi-ai");
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
        const { validateToolArguments } = await import("@earendil-works/pi-ai");
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
  });
}
