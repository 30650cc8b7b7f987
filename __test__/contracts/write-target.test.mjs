// A command that writes the index writes only into the workspace's own index directory, and
// `uninit` deletes only what CodeGraph made: run() of a write command description refuses a link
// a repository ships (`.codegraph -> ..`, a link to a sibling, a dangling link, a link inside, a
// chain of relative links, a link among CodeGraph's own files) and, for uninit, a mount point or a
// file CodeGraph does not make, with CODEGRAPH_NO_INDEX (kind notOwn) before anything starts: the
// fake CLI is never run and the directories outside are byte-identical. For both runners.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, readLog, root, tempDir, useFakeCli, withEnv } from "../helpers/index.mjs";
import { snapshot } from "../helpers/snapshot.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");

useFakeCli();

/** `outer/` holding the workspace `outer/ws` (no index) and a sibling `outer/sibling` with a file. */
function nest() {
  const outer = tempDir("pi-codegraph-outer-");
  const ws = path.join(outer, "ws");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "main.ts"), "export function main() {}\n");
  fs.mkdirSync(path.join(outer, "sibling"));
  fs.writeFileSync(path.join(outer, "sibling", "keep.txt"), "mine\n");
  fs.writeFileSync(path.join(outer, "victim"), "precious\n");
  return { outer, ws };
}

/** Runs `verb`'s command in `ws`; `{ error, ran }`: the rejection (or null) and whether the CLI ran. */
async function runVerb(impl, verb, ws, env = {}) {
  const log = path.join(tempDir("pi-codegraph-wt-log-"), "log.jsonl");
  let error = null;
  await withEnv({ FAKE_CG_LOG: log, ...env }, () =>
    impl.module.run(verbCommand(verb), ws).catch((e) => {
      error = e;
    }),
  );
  const ran = fs.existsSync(log) && readLog(log).some((r) => r.argv?.[0] === verbCommand(verb).subcommand);
  return { error, ran };
}

const index = (dir) => {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "codegraph.db"), Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(64)]));
};

/** The links a repository can ship, each with the verbs it must stop; `reason` is the fact's tag. */
const ATTACKS = [
  {
    name: ".codegraph -> ..",
    verbs: ["init"],
    reason: "outside",
    make: (ws) => fs.symlinkSync("..", path.join(ws, ".codegraph")),
  },
  {
    name: ".codegraph -> ../sibling",
    verbs: ["init"],
    reason: "outside",
    make: (ws) => fs.symlinkSync("../sibling", path.join(ws, ".codegraph")),
  },
  {
    name: "a dangling .codegraph -> ../nowhere",
    verbs: ["init"],
    reason: "linked",
    make: (ws) => fs.symlinkSync("../nowhere", path.join(ws, ".codegraph")),
  },
  {
    name: "a chain of relative links .codegraph -> a -> ../sibling",
    verbs: ["init"],
    reason: "outside",
    make: (ws) => {
      fs.symlinkSync("../sibling", path.join(ws, "a"));
      fs.symlinkSync("a", path.join(ws, ".codegraph"));
    },
  },
  {
    // Inside the workspace, but CodeGraph's `.gitignore` of `*` would land in a directory of the project.
    name: ".codegraph -> src (a link inside the workspace)",
    verbs: ["init"],
    reason: "linked",
    make: (ws) => {
      fs.mkdirSync(path.join(ws, "src"));
      fs.symlinkSync("src", path.join(ws, ".codegraph"));
    },
  },
  {
    name: ".codegraph/codegraph.db -> the outer victim (absolute)",
    verbs: ["init", "sync", "rebuild", "uninit", "unlock"],
    reason: "outside",
    make: (ws, outer) => {
      fs.mkdirSync(path.join(ws, ".codegraph"));
      fs.symlinkSync(path.join(outer, "victim"), path.join(ws, ".codegraph", "codegraph.db"));
    },
  },
  {
    name: ".codegraph/.gitignore -> ../../victim beside a real index",
    verbs: ["init", "sync", "rebuild", "uninit", "unlock"],
    reason: "outside",
    make: (ws) => {
      index(path.join(ws, ".codegraph"));
      fs.symlinkSync("../../victim", path.join(ws, ".codegraph", ".gitignore"));
    },
  },
  {
    name: ".codegraph/codegraph.db-wal -> ../../victim beside a real index",
    verbs: ["sync", "rebuild"],
    reason: "outside",
    make: (ws) => {
      index(path.join(ws, ".codegraph"));
      fs.symlinkSync("../../victim", path.join(ws, ".codegraph", "codegraph.db-wal"));
    },
  },
  {
    name: ".codegraph/codegraph.lock dangling",
    verbs: ["unlock", "sync"],
    reason: "linked",
    make: (ws) => {
      index(path.join(ws, ".codegraph"));
      fs.symlinkSync("gone", path.join(ws, ".codegraph", "codegraph.lock"));
    },
  },
];

for (const impl of implementations) {
  describe(`a write never goes through a link (${impl.name})`, () => {
    for (const attack of ATTACKS) {
      for (const verb of attack.verbs) {
        test(`${verb} with ${attack.name}: CODEGRAPH_NO_INDEX (notOwn), nothing runs, nothing outside changes`, async () => {
          const { outer, ws } = nest();
          attack.make(ws, outer);
          const before = snapshot(outer);
          const { error, ran } = await runVerb(impl, verb, ws);
          assert.equal(ran, false, "the CLI must not start");
          assert.equal(error?.code, "CODEGRAPH_NO_INDEX", String(error?.stack ?? error));
          assert.match(error.message, /not this workspace's own to write/);
          assert.match(error.message, attack.reason === "outside" ? /outside the workspace/ : /symbolic link/);
          assert.match(error.remediation, /Remove the link/);
          assert.deepEqual(snapshot(outer), before);
        });
      }
    }

    for (const entry of ["codegraph.db-wal", "codegraph.db-shm", "codegraph.db-journal"]) {
      test(`explore with .codegraph/${entry} -> ../../victim: refused too (CodeGraph writes SQLite's sidecars even to read)`, async () => {
        const { outer, ws } = nest();
        index(path.join(ws, ".codegraph"));
        fs.symlinkSync("../../victim", path.join(ws, ".codegraph", entry));
        const before = snapshot(outer);
        const log = path.join(tempDir("pi-codegraph-wt-log-"), "log.jsonl");
        const error = await withEnv({ FAKE_CG_LOG: log }, () => impl.module.explore("how does main work", ws)).then(
          () => null,
          (e) => e,
        );
        assert.equal(error?.code, "CODEGRAPH_NO_INDEX", String(error?.message));
        assert.match(
          error.message,
          new RegExp(`${entry.replace(".", "\\.")} resolves to .*victim, outside the workspace`),
        );
        assert.equal(fs.existsSync(log) && readLog(log).some((r) => r.argv?.[0] === "explore"), false);
        assert.equal((await impl.module.diagnose(ws)).ready, false);
        assert.deepEqual(snapshot(outer), before);
      });
    }

    test("CODEGRAPH_DIR names the index directory the check guards (.cg -> ..)", async () => {
      const { outer, ws } = nest();
      fs.symlinkSync("..", path.join(ws, ".cg"));
      const before = snapshot(outer);
      const { error, ran } = await runVerb(impl, "init", ws, { CODEGRAPH_DIR: ".cg" });
      assert.equal(ran, false);
      assert.equal(error?.code, "CODEGRAPH_NO_INDEX");
      assert.match(error.message, /\.cg is not this workspace's own to write/);
      assert.deepEqual(snapshot(outer), before);
    });

    test("PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1 accepts an existing external index for sync, never for init", async () => {
      const { outer, ws } = nest();
      index(path.join(outer, "sibling", "idx"));
      fs.symlinkSync("../sibling/idx", path.join(ws, ".codegraph"));
      const allow = { PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX: "1" };
      const sync = await runVerb(impl, "sync", ws, allow);
      assert.equal(sync.error, null, String(sync.error?.message));
      assert.equal(sync.ran, true);
      fs.rmSync(path.join(outer, "sibling", "idx", "codegraph.db"));
      const init = await runVerb(impl, "init", ws, allow);
      assert.equal(init.ran, false);
      assert.equal(init.error?.code, "CODEGRAPH_NO_INDEX");
    });

    test("a real .codegraph of the workspace's own is written as before (init, sync, uninit)", async () => {
      const ws = makeWorkspace({ index: false });
      for (const verb of ["init", "sync", "uninit"]) {
        const { error, ran } = await runVerb(impl, verb, ws);
        assert.equal(error, null, `${verb}: ${error?.message}`);
        assert.equal(ran, true, verb);
      }
      assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
    });
  });

  describe(`uninit deletes only what CodeGraph made (${impl.name})`, () => {
    const own = [
      [
        "CodeGraph's files, a pid temp file and its trails",
        ["writer.pid.123.ready.tmp", "daemon.log", "ui/trails/t.json"],
      ],
    ];
    for (const [name, files] of own) {
      test(`${name}: uninit runs`, async () => {
        const ws = makeWorkspace();
        for (const f of files) {
          fs.mkdirSync(path.dirname(path.join(ws, ".codegraph", f)), { recursive: true });
          fs.writeFileSync(path.join(ws, ".codegraph", f), "x");
        }
        const { error, ran } = await runVerb(impl, "uninit", ws);
        assert.equal(error, null, String(error?.message));
        assert.equal(ran, true);
      });
    }
    const foreign = ["notes.txt", "backup/old.db", "ui/mine.txt", "ui/trails/sub/x", "codegraph.lock/inner"];
    for (const entry of foreign) {
      test(`.codegraph/${entry} (not CodeGraph's): refused before anything runs, the file kept; sync still runs`, async () => {
        const ws = makeWorkspace();
        const file = path.join(ws, ".codegraph", entry);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, "keep me\n");
        const before = snapshot(ws);
        const { error, ran } = await runVerb(impl, "uninit", ws);
        assert.equal(ran, false);
        assert.equal(error?.code, "CODEGRAPH_NO_INDEX", String(error?.message));
        assert.match(error.message, /not CodeGraph's alone to delete: .* is not a file CodeGraph makes/);
        assert.match(error.remediation, /^Move /);
        assert.deepEqual(snapshot(ws), before);
        assert.equal((await runVerb(impl, "sync", ws)).ran, true);
      });
    }
  });
}

/**
 * A bind-mounted `.codegraph` (a container volume) in a private mount namespace: `unshare -m`
 * runs a child that mounts `src` on the workspace's `.codegraph` and asks the runner for uninit;
 * prints the code it got. Skipped with the reason where mounts are not possible here.
 */
const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const canMount = (() => {
  if (process.platform !== "linux") return "mounts are Linux-only here";
  const r = spawnSync("unshare", ["-m", "--propagation", "private", "true"], {
    encoding: "utf8",
    env: { PATH: SYSTEM_PATH },
  });
  return r.status === 0 ? null : `unshare -m is not available (${(r.stderr || r.error?.message || "").trim()})`;
})();

for (const impl of implementations) {
  test(`uninit refuses a bind-mounted .codegraph (diagnose says so first) and its source stays byte-identical (${impl.name})`, {
    skip: canMount ?? false,
  }, () => {
    const src = tempDir("pi-codegraph-volume-");
    index(src);
    fs.writeFileSync(path.join(src, ".gitignore"), "*\n!.gitignore\n");
    const ws = makeWorkspace({ index: false });
    fs.mkdirSync(path.join(ws, ".codegraph"));
    const before = snapshot(src);
    const child = `
      const m = require(${JSON.stringify(path.join(root, "index.js"))});
      const api = ${impl.id === "native" ? "m" : `m.forRunner(require(${JSON.stringify(path.join(root, "lib", "runners", "node.js"))}))`};
      const { verbCommand } = require(${JSON.stringify(path.join(root, "lib", "contract", "verbs.js"))});
      api.diagnose(${JSON.stringify(ws)}).then((d) =>
        api.run(verbCommand("uninit"), ${JSON.stringify(ws)}).then(
          () => console.log(JSON.stringify({ ok: true })),
          (e) => console.log(JSON.stringify({ code: e.code, message: e.message, removeProblem: d.removeProblem })),
        ),
      );`;
    // mount from the system's PATH, then the runner with the fake CLI alone on PATH, as every test here.
    const script = `mount --bind "$1" "$2/.codegraph" && PATH="$5" exec "$3" -e "$4"`;
    const args = [
      "-m",
      "--propagation",
      "private",
      "sh",
      "-c",
      script,
      "sh",
      src,
      ws,
      process.execPath,
      child,
      process.env.PATH,
    ];
    const r = spawnSync("unshare", args, { encoding: "utf8", env: { ...process.env, PATH: SYSTEM_PATH } });
    assert.equal(r.status, 0, r.stderr);
    const said = JSON.parse(r.stdout.trim().split("\n").at(-1));
    assert.equal(said.code, "CODEGRAPH_NO_INDEX", r.stdout);
    assert.match(said.message, /is a mount point/);
    assert.match(
      said.removeProblem ?? "",
      /is a mount point/,
      "diagnose says it too, so /codegraph uninit refuses before its dialog",
    );
    assert.deepEqual(snapshot(src), before);
  });
}
