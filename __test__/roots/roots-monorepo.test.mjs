// Several CodeGraph roots in one session (issue 24), at the public seam with the fake CLI
// (the session and its helpers: helpers/roots-session.mjs). Over the native addon and the Node
// runner.
// This file: a monorepo whose indexes live in packages/api and packages/web (helpers/roots.mjs):
// what the model sees (every tool's `project`: an enum of the labels, never a path), where each
// call runs (the fake's echo of its cwd), the line an answer from another root begins with, the
// verbs and the status per root, and `/codegraph cancel` of a write in a root.
import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { isAlive, parseEcho, readJsonFile, rejectsWith, tempDir, waitFor, withEnv } from "../helpers/index.mjs";
import { makeMonorepo } from "../helpers/roots.mjs";
import {
  API,
  answerFrom,
  EXPLORE,
  firstLine,
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
        const report = (await s.cg("doctor")).split("\n");
        assert.equal(report[0], "pi-codegraph: ready");
        assert.deepEqual(
          report.filter((l) => l.startsWith("project ")),
          API.map((l) => `project ${l}: ${path.join(ws, l)} (ready)`),
        );
        assert.ok(report.includes(`workspace: ${ws}`));
        // Under "ready", the workspace's own index is said to be absent, not unusable.
        assert.ok(report.includes("index: none of the workspace's own; the tools answer from the projects below"));
        assert.doesNotMatch(report.join("\n"), /no usable index/);
      });

      test("files changed in one project: the next step names that project's sync; in both, each", async () => {
        const t = await session(makeMonorepo());
        const edit = (file) => t.host.toolResult({ toolName: "edit", input: { path: file } }, t.ctx);
        await edit("packages/web/src/cart.ts");
        assert.match(await t.cg(""), /\nNext: \/codegraph sync packages\/web brings its index up to date\.\n/);
        await edit("packages/api/src/cart.ts");
        assert.match(
          await t.cg(""),
          /\nNext: \/codegraph sync <name> for each project with changes: packages\/api, packages\/web\.\n/,
        );
      });

      test("/codegraph roots lists the labels, directories, sources and readiness, and what the scan did", async () => {
        const lines = (await s.cg("roots")).split("\n");
        assert.deepEqual(lines.slice(0, 3), [
          "CodeGraph projects: 2 (the tools take `project`: one of the names)",
          `  packages/api  ${path.join(ws, "packages/api")}  found below the workspace; ready`,
          `  packages/web  ${path.join(ws, "packages/web")}  found below the workspace; ready`,
        ]);
        assert.match(lines[3], /^scan: 2 found below the workspace, \d+ directories read in \d+ ms \(depth ≤ 4\)$/);
        assert.equal(
          lines[4],
          "Add one with /codegraph projects add <dir>; remove one you added with /codegraph projects remove <name>.",
        );
        assert.equal(lines.length, 5);
        assert.equal(s.ui.notes.at(-1).type, "info");
      });

      test("/codegraph projects remove: a scanned root is refused, an unknown label too; nothing changes", async () => {
        assert.equal(
          await s.cg("roots remove packages/api"),
          "/codegraph projects remove: packages/api was not added by you (found below the workspace); only a project you added can be removed.",
        );
        assert.equal(
          await s.cg("roots remove nope"),
          '/codegraph projects remove: no project is named "nope" (you have added none).',
        );
        assert.equal(await s.cg("roots remove"), "/codegraph projects remove: give the name of a project you added.");
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
            '/codegraph sync: no project is named "packages/nope"; the projects: packages/api, packages/web. Nothing was run.',
          );
          assert.equal(log().length, 2, "nothing more ran");
        });
      });

      test("a verb that could mean several projects asks which with Pi's select; cancelled, nothing runs", async () => {
        const answers = ["packages/web", undefined];
        const asked = await session(ws, { select: () => answers.shift() });
        await logged(async (log) => {
          const web = path.join(ws, "packages", "web");
          const sync = await asked.cg("sync");
          assert.deepEqual(asked.ui.selects[0], { title: "/codegraph sync: which project?", options: API });
          assert.equal(sync.split("\n")[0], `Project packages/web (${web}):`);
          assert.deepEqual(
            log().map((r) => [r.argv[0], r.cwd]),
            [["sync", web]],
          );
          assert.equal(await asked.cg("rebuild"), "/codegraph rebuild: cancelled, nothing changed.");
          assert.equal(log().length, 1, "nothing more ran");
        });
      });

      test("verb completion: after a verb, the labels (then sync's modes)", () => {
        assert.deepEqual(
          s.complete("sync ").map((i) => i.value),
          [...API.map((l) => `sync ${l}`), "sync auto", "sync manual"],
        );
        assert.deepEqual(
          s.complete("status ").map((i) => [i.value, i.description]),
          API.map((l) => [`status ${l}`, path.join(ws, l)]),
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
            /^\/codegraph sync: cancelled after \d+\.\d s, CodeGraph stopped; run \/codegraph sync again to finish the update\.$/m,
          );
          await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
            what: "the sync's tree to be gone",
          });
        });
      }
      assert.equal(await s.cg("cancel"), "/codegraph cancel: no /codegraph write is running in this workspace.");
    });
  });
}
