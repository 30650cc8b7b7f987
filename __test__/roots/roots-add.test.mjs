// Several CodeGraph roots in one session (issue 24), at the public seam with the fake CLI
// (the session and its helpers: helpers/roots-session.mjs). Over the native addon and the Node
// runner.
// This file: `/codegraph projects add` of an indexed project above the workspace (list, add, remove,
// saved per project, completion), the parallel limit per root and the edits counted per root.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeCli, readJsonFile, rejectsWith, tempDir, waitFor, withEnv } from "../helpers/index.mjs";
import { makeMonorepo, makeNested, makeProject } from "../helpers/roots.mjs";
import {
  API,
  answerFrom,
  EXPLORE,
  outsideLine,
  PARAMS,
  pathLine,
  rootsSession,
  TOOLS,
  useRootsEnv,
} from "../helpers/roots-session.mjs";

const require = createRequire(import.meta.url);
// Where `/codegraph projects add` keeps a project's roots (Pi's agent directory, a file named by the project's path).
const { savedFile } = require("../../lib/pi/tools/choice.js");

useRootsEnv();

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;
    const session = (cwd, options) => rootsSession(pkg, cwd, options);

    describe("/codegraph projects add: an indexed project above the workspace", () => {
      test("added by a relative path: labelled by its path from the workspace (../../django), calls run there and begin with the absolute path line", async () => {
        const { project, ws } = makeNested("django");
        const s = await session(ws);
        assert.equal(s.project(), undefined);
        assert.equal(
          await s.cg("roots add .."),
          `Added ../../django (${project}): the codegraph tools can now ask it by that name; kept for this workspace.`,
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
        assert.deepEqual(list.slice(0, 2), [
          "CodeGraph projects: 1",
          `  ../../django  ${project}  added by you; ready`,
        ]);
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
              `Added ${myProj} (${project}): the codegraph tools can now ask it by that name; kept for this workspace.`,
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
        const say = (why) => `/codegraph projects add: nothing added: ${why}.`;
        assert.equal(await s.cg("roots add"), say("give the directory: /codegraph projects add <dir>"));
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
        assert.equal(await s.cg("roots add .."), say(`${project} is already a project (${myProj})`));
        assert.deepEqual(
          (await s.complete("roots remove ")).map((i) => [i.value, i.description]),
          [[`roots remove ${myProj}`, project]],
        );
        assert.equal(await s.cg(`roots remove ${myProj}`), `Removed ${myProj} (${project}).`);
        assert.equal(
          await s.cg(`roots remove ${myProj}`),
          `/codegraph projects remove: no project is named "${myProj}" (you have added none).`,
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
          "/codegraph projects add: nothing added: at most 16 projects can be added to one workspace.",
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
          `Added ${twinLabel} (${twin}): the codegraph tools can now ask it by that name; kept for this workspace.`,
        );
        assert.equal(
          await s.cg("roots add vendor/lib"),
          `Added vendor/lib (${vendored}): the codegraph tools can now ask it by that name; kept for this workspace.`,
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
          `Added ..cache (${cache}): the codegraph tools can now ask it by that name; kept for this workspace.`,
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
          "CodeGraph projects: none (no index in the workspace, none found below it, none added)",
        );

        fs.writeFileSync(savedFile(agentDir, ws, "roots"), "{not json");
        const corrupt = await session(ws, env);
        assert.equal(corrupt.project(), undefined);
        const lines = (await corrupt.cg("roots")).split("\n");
        assert.equal(lines[0], "CodeGraph projects: none (no index in the workspace, none found below it, none added)");
        assert.ok(
          lines.includes(`saved projects ignored: ${savedFile(agentDir, ws, "roots")}: not JSON`),
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
          `Added ../../django (${project}): the codegraph tools can now ask it by that name; for this session only: it could not be saved (ENOTDIR).`,
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
      assert.equal(s.slot(), "⬡ codegraph · 2 projects · 1 file changed since the index");
      await s.turn();
      assert.equal(
        s.slot(),
        "⬡ codegraph · 2 projects · 1 file changed since the index",
        "packages/api's index is older",
      );
      assert.equal(
        (await s.cg("")).split("\n")[0],
        "pi-codegraph: ready, 1 file changed since the index: packages/api/src/x.ts",
      );

      // packages/web's index written: the edit in packages/api still counts.
      const later = Date.now() / 1000 + 60;
      fs.utimesSync(path.join(ws, "packages/web/.codegraph/codegraph.db"), later, later);
      await s.turn();
      assert.equal(s.slot(), "⬡ codegraph · 2 projects · 1 file changed since the index");
      fs.utimesSync(path.join(ws, "packages/api/.codegraph/codegraph.db"), later, later);
      await s.turn();
      assert.equal(s.slot(), "⬡ codegraph · 2 projects");
    });
  });
}
