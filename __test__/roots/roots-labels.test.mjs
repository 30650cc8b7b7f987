// What a root's label means, at the public seam with the fake CLI (over the native addon and the
// Node runner): a label names one directory whatever the scan's timing
// and whatever is added or found later (the workspace-relative path inside, a path beginning
// `..` outside); a verb, `/codegraph projects remove`, `/codegraph cancel` and the completions read
// a label only once a scan still running has finished; a verb that writes acts on a root outside
// the workspace only when its label was typed; and what a repository can plant is bounded: a file
// with SQLite's magic is no index, at most 16 roots reach the tools' `project`, a label is at most
// 40 characters, and so the tool definitions a request carries stay small.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeBinDir, hashTree, readLog, tempDir, useAgentDirEnv, withEnv } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import { piEnv, piMissing, piScratch, runPi, tearDownPiSuite, writeModelsJson } from "../helpers/pi-harness.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";
import { indexBytes, makeMonorepo, makeNested, makeProject, writeIndex } from "../helpers/roots.mjs";

const require = createRequire(import.meta.url);
// Where `/codegraph projects add` keeps a project's roots (Pi's agent directory, a file named by the project's path).
const { savedFile } = require("../../lib/pi/tools/choice.js");

/** Node's own SQLite (Node 22.5+), to write real SQLite files; absent: those cases are skipped. */
const sqlite = (() => {
  try {
    return require("node:sqlite");
  } catch {
    return null;
  }
})();

const EXPLORE = "codegraph_explore";
const TOOLS = [EXPLORE, "codegraph_node", "codegraph_relations", "codegraph_search"];

useAgentDirEnv(["PI_CODEGRAPH_TOOLS"]);

/** `/codegraph projects add`'s words. */
const added = (label, dir) =>
  `Added ${label} (${dir}): the codegraph tools can now ask it by that name; kept for this workspace.`;

/**
 * A workspace `ws` (a package.json, no index of its own) with an indexed `ws/api`, and an indexed
 * directory of the same name outside it, `outside` (`<base>/elsewhere/api`): `{ ws, inner, outside }`.
 */
function twoApis() {
  const base = tempDir("pi-codegraph-labels-");
  const ws = path.join(base, "ws");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
  return { ws, inner: makeProject(path.join(ws, "api")), outside: makeProject(path.join(base, "elsewhere", "api")) };
}

/** Saves `dirs` as the added roots of `ws` in `agentDir`, as `/codegraph projects add` in an earlier session did. */
function saveAdded(agentDir, ws, dirs) {
  const file = savedFile(agentDir, ws, "roots");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ roots: dirs }));
}

/**
 * Runs `fn()` while the scan's listing of `dir` never answers (a hung mount): the scan stops at its
 * own deadline with what it found above that directory.
 */
async function withHungListing(dir, fn) {
  const fsp = fs.promises;
  const readdir = fsp.readdir;
  fsp.readdir = function hung(p, ...rest) {
    if (String(p) === dir) return new Promise(() => {});
    return readdir.call(this, p, ...rest);
  };
  try {
    return await fn();
  } finally {
    fsp.readdir = readdir;
  }
}

/** The bytes of the tool definitions a request carries: the active tools' name, description and schema. */
const definitionBytes = (host) =>
  host
    .activeTools()
    .reduce(
      (n, t) =>
        n + Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })),
      0,
    );

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;

    /** A Pi session in `cwd`; unless `turn: false`, after its first turn began (the scan is done). */
    async function session(cwd, { env = {}, hasUI = true, turn = true, tools = "all", ...uiOptions } = {}) {
      const host = await hostWith(pkg, "labels");
      const ui = recordingUi(uiOptions);
      const ctx = { cwd, hasUI, ui };
      const vars = { PI_CODEGRAPH_TOOLS: tools, ...env };
      await withEnv(vars, async () => {
        await host.startSession(ctx);
        if (turn) await host.beforeAgentStart(ctx);
      });
      const tool = (name = EXPLORE) => host.registry.find((t) => t.name === name);
      const notes = ui.notes;
      const cg = async (args) => {
        const from = notes.length;
        await withEnv(vars, () => runCommand(host, ctx, "codegraph", args));
        return notes
          .slice(from)
          .map((n) => n.message)
          .join("\n");
      };
      const complete = (prefix) => host.commands.get("codegraph").getArgumentCompletions(prefix);
      const project = (name = EXPLORE) => tool(name).parameters.properties.project;
      return { host, ui, ctx, tool, cg, complete, project };
    }

    describe("a label names one directory, whenever it is read", () => {
      test("an added root outside is labelled by its path from the workspace; the inside root of the same name keeps its own; a later scan renames neither", async () => {
        const { ws, inner, outside } = twoApis();
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        assert.equal(await s.cg(`roots add ${outside}`), added("../elsewhere/api", outside));
        assert.deepEqual(s.project().enum, ["api", "../elsewhere/api"]);
        // A directory inside named as the outside one's label would read: its own, distinct label.
        const mirror = makeProject(path.join(ws, "elsewhere", "api"));
        const listed = (await s.cg("roots")).split("\n");
        assert.ok(listed.includes(`  ../elsewhere/api  ${outside}  added by you; ready`), listed.join("\n"));
        assert.ok(listed.includes(`  elsewhere/api  ${mirror}  found below the workspace; ready`), listed.join("\n"));
        assert.ok(listed.includes(`  api  ${inner}  found below the workspace; ready`), listed.join("\n"));
        assert.deepEqual(s.project().enum, ["api", "elsewhere/api", "../elsewhere/api"]);
      });

      test("added before the scan finds its namesake inside: still ../elsewhere/api, and `api` is the inside one", async () => {
        const { ws, inner, outside } = twoApis();
        fs.rmSync(path.join(inner, ".codegraph"), { recursive: true });
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        assert.equal(await s.cg(`roots add ${outside}`), added("../elsewhere/api", outside));
        writeIndex(inner);
        await s.cg("roots");
        assert.deepEqual(s.project().enum, ["api", "../elsewhere/api"]);
        const said = await s.cg("status api");
        assert.equal(said.split("\n")[0], `Project api (${inner}):`);
      });

      test("an enclosing project is ../../<name>; a name a label cannot hold, or a long path, ends with ~ and its directory's hash", async () => {
        const { project, ws } = makeNested("django");
        fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
        const spaced = makeProject(path.join(path.dirname(project), "my proj"));
        const deep = makeProject(path.join(ws, "services", "payments", "internal", "reconciliation-engine"));
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        const hash = (dir) => crypto.createHash("sha256").update(dir).digest("hex").slice(0, 8);
        assert.equal(await s.cg("roots add .."), added("../../django", project));
        assert.equal(await s.cg(`roots add "${spaced}"`), added(`../…/my_proj~${hash(spaced)}`, spaced));
        const labels = s.project().enum;
        assert.deepEqual(labels, [
          `…/reconciliation-engine~${hash(deep)}`,
          "../../django",
          `../…/my_proj~${hash(spaced)}`,
        ]);
        for (const l of labels) assert.ok([...l].length <= 40, l);
      });

      test("under the user's home, an outside project is ~/<its path from home>, as a person writes it", async () => {
        const { project, ws } = makeNested("notes");
        const home = path.dirname(path.dirname(project));
        const s = await withEnv({ HOME: home }, () =>
          session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } }),
        );
        const label = `~/${path.relative(home, project)}`;
        assert.equal(await withEnv({ HOME: home }, () => s.cg("roots add ..")), added(label, project));
      });
    });

    describe("a label is read once a scan still running has finished", () => {
      test("`/codegraph uninit api --yes` and the completion right after session start act on the api the scan finds (roots remove api too); the outside index and root are untouched", async () => {
        const { ws, inner, outside } = twoApis();
        const agentDir = tempDir("pi-codegraph-agent-");
        saveAdded(agentDir, ws, [outside]);
        fs.mkdirSync(path.join(ws, "zz", "hung"), { recursive: true });
        const before = hashTree(path.dirname(outside));
        await withHungListing(path.join(ws, "zz", "hung"), async () => {
          const s = await session(ws, { env: { PI_CODING_AGENT_DIR: agentDir }, turn: false });
          const [completed] = await Promise.all([
            s.complete("uninit "),
            s.cg("uninit api --yes"),
            s.cg("roots remove api"),
          ]);
          assert.deepEqual(
            completed.map((c) => c.value),
            ["uninit api", "uninit ../elsewhere/api"],
          );
          const said = s.ui.notes.map((n) => n.message);
          assert.ok(
            said.some((m) => m.startsWith(`Project api (${inner}):\n/codegraph uninit: done`)),
            said.join("\n---\n"),
          );
          // `api` is the scanned one: not the added root, which stays.
          assert.ok(
            said.includes(
              "/codegraph projects remove: api was not added by you (found below the workspace); only a project you added can be removed.",
            ),
            said.join("\n---\n"),
          );
          assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph · ../elsewhere/api", "the added root stays");
          assert.deepEqual(s.ui.confirms, [], "--yes: no dialog");
        });
        assert.equal(fs.existsSync(path.join(inner, ".codegraph")), false, "the inside api's index was removed");
        assert.deepEqual(hashTree(path.dirname(outside)), before, "the index outside the workspace is untouched");
      });
    });

    describe("a write acts on a root outside the workspace only when its label is typed", () => {
      test("no index of the workspace's own, one added root outside: sync, rebuild, uninit and unlock without a label run nothing, ask nothing and say which label to type", async () => {
        const { project, ws } = makeNested("django");
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        await s.cg("roots add ..");
        const index = path.join(project, ".codegraph");
        const before = hashTree(index);
        const file = path.join(tempDir("pi-codegraph-labels-log-"), "log.jsonl");
        await withEnv({ FAKE_CG_LOG: file }, async () => {
          for (const args of ["uninit --yes", "uninit", "rebuild --yes", "sync", "sync --yes", "unlock"]) {
            const verb = args.split(" ")[0];
            assert.equal(
              await s.cg(args),
              `/codegraph ${verb}: refused. The only CodeGraph project here, ${project}, is outside the workspace, and a write acts on it only when you name it: /codegraph ${verb} ../../django. Nothing was run.`,
              args,
            );
            assert.equal(s.ui.notes.at(-1).type, "warning");
          }
          assert.deepEqual(s.ui.confirms, [], "no dialog");
          assert.deepEqual(fs.existsSync(file) ? readLog(file) : [], [], "no CLI started");
          assert.deepEqual(hashTree(index), before, "the index outside is untouched");
          // Reading is not writing: status without a label reads the only root.
          assert.equal((await s.cg("status")).split("\n")[0], `Project ../../django (${project}):`);
          // Typed, it runs there, and what it says names that directory.
          const said = await s.cg("uninit ../../django --yes");
          assert.equal(said.split("\n")[0], `Project ../../django (${project}):`);
          assert.equal(fs.existsSync(index), false);
        });
      });

      test("without a UI, the --yes a label-typed write needs is asked for with its label", async () => {
        const { project, ws } = makeNested("django");
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        await s.cg("roots add ..");
        const printed = [];
        const write = process.stdout.write;
        process.stdout.write = (chunk) => {
          printed.push(String(chunk));
          return true;
        };
        try {
          s.ctx.hasUI = false;
          await s.cg("rebuild ../../django");
        } finally {
          process.stdout.write = write;
          s.ctx.hasUI = true;
        }
        assert.equal(
          printed.join(""),
          `Project ../../django (${project}):\n/codegraph rebuild: refused without confirmation (no UI to ask in this mode). To run it, type: /codegraph rebuild ../../django --yes\n`,
        );
        assert.ok(fs.existsSync(path.join(project, ".codegraph", "codegraph.db")));
      });
    });

    describe("what a verb says names the directory it acts on", () => {
      test("a write in the workspace while other roots exist begins with the workspace's label and directory; its dialog names the index", async () => {
        const ws = makeMonorepo({ own: true });
        const s = await session(ws, { env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") } });
        const said = await s.cg("rebuild");
        assert.equal(said.split("\n")[0], `Project . (${ws}):`, said);
        assert.match(said, /\/codegraph rebuild: done in/);
        assert.ok(s.ui.confirms.at(-1).body.includes(`${ws}/.codegraph`), s.ui.confirms.at(-1).body);
        const api = path.join(ws, "packages", "api");
        assert.equal((await s.cg("rebuild packages/api")).split("\n")[0], `Project packages/api (${api}):`);
        assert.ok(s.ui.confirms.at(-1).body.includes(`${api}/.codegraph`), s.ui.confirms.at(-1).body);
      });
    });

    describe("what a repository can plant is bounded", () => {
      /** A workspace with its own index and `n` directories `name(i)` below it, each holding `.codegraph/codegraph.db` = `bytes`. */
      function planted(n, name, bytes) {
        const ws = tempDir("pi-codegraph-planted-");
        fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
        writeIndex(ws);
        for (let i = 0; i < n; i++) {
          const dir = path.join(ws, ...name(i).split("/"), ".codegraph");
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(path.join(dir, "codegraph.db"), bytes);
        }
        return ws;
      }
      const magicOnly = Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4080, 7)]);
      const long = (i) => `p${String(i).padStart(2, "0")}-${"x".repeat(60)}`;

      test("the content decides, on real SQLite files: CodeGraph's tables in a one-page or a multi-page schema count; other tables, a cut file or a bad page size do not", {
        skip: !sqlite,
      }, async () => {
        const ws = planted(0, long, magicOnly);
        const make = (name, tables, extra = 0) => {
          const dir = path.join(ws, name, ".codegraph");
          fs.mkdirSync(dir, { recursive: true });
          const db = new sqlite.DatabaseSync(path.join(dir, "codegraph.db"));
          for (const t of tables) db.exec(`CREATE TABLE ${t} (id TEXT PRIMARY KEY, body TEXT)`);
          // Enough tables that the schema outgrows page 1, as CodeGraph's own does.
          for (let i = 0; i < extra; i++)
            db.exec(`CREATE TABLE t${i} (a TEXT, b TEXT, c TEXT, d TEXT, e TEXT, f TEXT)`);
          db.close();
          return path.join(dir, "codegraph.db");
        };
        make("cgsmall", ["nodes", "edges", "files"]);
        const big = make("cgbig", ["nodes", "edges", "files"], 60);
        assert.equal(fs.readFileSync(big)[100], 0x05, "page 1 is an interior page");
        make("other", ["users", "orders", "items"], 60);
        fs.mkdirSync(path.join(ws, "cut", ".codegraph"), { recursive: true });
        fs.writeFileSync(path.join(ws, "cut", ".codegraph", "codegraph.db"), fs.readFileSync(big).subarray(0, 8192));
        const odd = indexBytes();
        odd.writeUInt16BE(1000, 16);
        fs.mkdirSync(path.join(ws, "odd", ".codegraph"), { recursive: true });
        fs.writeFileSync(path.join(ws, "odd", ".codegraph", "codegraph.db"), odd);
        const s = await session(ws);
        assert.deepEqual(s.project().enum, [".", "cgbig", "cgsmall"]);
      });

      test("64 files with SQLite's magic and nothing of CodeGraph's are no roots: the tools' definitions are a plain workspace's", async (t) => {
        const plain = await session(planted(0, long, magicOnly));
        const s = await session(planted(64, long, magicOnly));
        assert.equal(s.project(), undefined);
        assert.equal(definitionBytes(s.host), definitionBytes(plain.host));
        t.diagnostic(`tool definitions: ${definitionBytes(s.host)} bytes per request`);
        assert.equal((await s.cg("roots")).split("\n")[0], "CodeGraph projects: 1");
      });

      test("64 indexes with 64-character names: at most 16 labels of at most 40 characters reach the tools (the workspace's own and the added first, then the shallowest); the rest are listed as not offered", async (t) => {
        const ws = planted(64, (i) => (i < 2 ? `a/${long(i)}` : long(i)), indexBytes());
        const extra = makeProject(path.join(tempDir("pi-codegraph-extra-"), "extra"));
        // The default set: all five tools.
        const s = await session(ws, {
          tools: "all",
          env: { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") },
        });
        await s.cg(`roots add ${extra}`);
        const enumOf = (name) => s.project(name)?.enum ?? s.tool(name).parameters.properties.project?.anyOf;
        const labels = enumOf(EXPLORE);
        assert.equal(labels.length, 16);
        assert.equal(labels[0], ".");
        assert.ok(
          labels.includes(path.relative(ws, extra)) || labels.some((l) => l.startsWith("../…/extra~")),
          labels.join(),
        );
        for (const l of labels) assert.ok([...l].length <= 40, l);
        // The shallowest found: p02… p15 (the two one level deeper, under a/, are not offered).
        const scanned = labels.filter((l) => l !== "." && !l.startsWith(".."));
        assert.equal(scanned.length, 14);
        assert.ok(
          scanned.every((l) => /^…\/p(0[2-9]|1[0-5])-x+~[0-9a-f]{8}$/.test(l)),
          scanned.join(),
        );
        const bytes = definitionBytes(s.host);
        t.diagnostic(`tool definitions with 64 planted indexes: ${bytes} bytes per request`);
        // The five tools' definitions: under 9 KB with 16 labels of 40 characters (each tool's
        // `project` enum holds them: about 0.7 KB a tool), however many indexes are planted.
        assert.ok(bytes <= 9000, `${bytes} bytes`);
        const list = (await s.cg("roots")).split("\n");
        assert.equal(
          list[0],
          "CodeGraph projects: 66 (the tools take `project`: one of the names); 16 offered to the model, 50 not",
        );
        const left = list.filter((l) => l.includes("not offered to the model (at most 16 are:"));
        assert.equal(left.length, 50);
        // A verb still takes a label the model is not offered.
        const deep = list
          .find((l) => l.includes(`${path.sep}a${path.sep}p00-`))
          .trim()
          .split("  ")[0];
        assert.match((await s.cg(`status ${deep}`)).split("\n")[0], /^Project …\/p00-x+~[0-9a-f]{8} \(/);
        for (const name of TOOLS.slice(1))
          assert.equal(s.tool(name).parameters.properties.project?.enum?.length ?? 16, 16);
      });
    });
  });
}

void indexBytes;
void definitionBytes;
void TOOLS;
void readLog;

describe("in real Pi print mode, over the fake CLI", { skip: piMissing, timeout: 90000 }, () => {
  let scratch;
  let env;
  const args = (prompt) => [
    "-p",
    "--offline",
    "--no-session",
    "--no-context-files",
    "--provider",
    "fake",
    "--model",
    "fake-labels",
    prompt,
  ];
  before(async () => {
    const made = piScratch("pi-codegraph-labels-pi-");
    scratch = made.scratch;
    fs.mkdirSync(path.join(scratch, "tmp"));
    // No model is asked: a slash command runs in the extension. The provider only has to exist.
    writeModelsJson(made.agentDir, "http://127.0.0.1:9/v1", ["fake-labels"]);
    const systemDirs = ["/usr/bin", "/bin"].filter((d) => fs.existsSync(d));
    const pathDirs = [fakeBinDir(), path.dirname(process.execPath), ...systemDirs];
    env = piEnv({ agentDir: made.agentDir, home: made.home, pathDirs, extra: { TMPDIR: path.join(scratch, "tmp") } });
    const install = (await installPacked({ cwd: scratch, env })).result;
    assert.equal(install.code, 0, `pi install: ${install.stderr.slice(-2000)}`);
  });
  after(() => tearDownPiSuite({ strayPids: [], server: undefined, dirs: [scratch] }));

  for (const runner of ["native", "node"])
    test(`${runner} runner: \`pi -p "/codegraph uninit api --yes"\` after adding <elsewhere>/api removes the workspace's api index; the one outside is byte-identical`, async () => {
      const ws = path.join(scratch, runner, "ws");
      const runEnv = { ...env, PI_CODEGRAPH_RUNNER: runner };
      fs.mkdirSync(ws, { recursive: true });
      fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
      const inner = makeProject(path.join(ws, "api"));
      const outside = makeProject(path.join(scratch, runner, "elsewhere", "api"));
      const add = await runPi(args("/codegraph projects add ../elsewhere/api"), { cwd: ws, env: runEnv });
      assert.equal(add.code, 0, add.stderr);
      // Pi's print mode writes what an extension prints to stderr (its stdout is the answer's).
      const said = (r) => `${r.stdout}${r.stderr}`;
      assert.ok(said(add).startsWith(`Added ../elsewhere/api (${outside}):`), said(add));
      const before = hashTree(path.dirname(outside));
      const run = await runPi(args("/codegraph uninit api --yes"), { cwd: ws, env: runEnv });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(said(run).split("\n")[0], `Project api (${inner}):`, said(run));
      assert.equal(fs.existsSync(path.join(inner, ".codegraph")), false, said(run));
      assert.deepEqual(hashTree(path.dirname(outside)), before, "the index outside the workspace is byte-identical");
    });
});
