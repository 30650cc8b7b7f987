// The `/codegraph` verbs through a Pi host (helpers/pi-host.mjs) over the fake CLI, which acts out
// init/index/sync/status/uninit/unlock on `.codegraph/codegraph.db` as CodeGraph 1.6.1 does
// (walking up to an ancestor's index where the real one does): what runs (argv from the fake's
// log), what is asked first, what a decline leaves (the workspace byte-identical), progress and
// cancel (Esc in the loader, /codegraph cancel) down to the CLI's whole process tree, refusal on
// an enclosing project's index, print mode, and readiness after a write; for both runners.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import {
  fakeBinDir,
  hashTree,
  isAlive,
  makeWorkspace,
  readJsonFile,
  readLog,
  tempDir,
  useFakeCli,
  waitFor,
  withEnv,
} from "../helpers/index.mjs";
import { hostWith, piInteractive, recordingUi, renderText, runCommand } from "../helpers/pi-host.mjs";
import { writeIndex } from "../helpers/roots.mjs";

let pkg;
useFakeCli();
before(piInteractive); // the loader draws Pi's key hint with Pi's keybindings

/** A Pi session in `cwd` (`ui`: recordingUi's options; `hasUI: false` is print/json mode). */
async function session(cwd, { hasUI = true, mode, ...uiOptions } = {}) {
  const host = await hostWith(pkg, "verbs");
  const ui = recordingUi(uiOptions);
  const ctx = { cwd, hasUI, ui, ...(mode ? { mode } : {}) };
  await host.startSession(ctx);
  const tool = () => host.registry.find((t) => t.name === "codegraph_explore");
  /** Runs `/codegraph <args>`; what it said (notifications, or stdout without a UI). */
  const cg = async (args) => {
    const from = ui.notes.length;
    if (hasUI) {
      await runCommand(host, ctx, "codegraph", args);
      return ui.notes
        .slice(from)
        .map((n) => n.message)
        .join("\n");
    }
    return captureStdout(() => runCommand(host, ctx, "codegraph", args));
  };
  return { host, ui, ctx, tool, cg, command: host.commands.get("codegraph") };
}

/** What `fn` writes to process.stdout (print mode's /codegraph output). */
async function captureStdout(fn) {
  const write = process.stdout.write;
  let out = "";
  process.stdout.write = (chunk, ...rest) => {
    out += String(chunk);
    const cb = rest.find((r) => typeof r === "function");
    cb?.();
    return true;
  };
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return out;
}

/** Runs `fn(log)` with the fake logging its calls to a fresh file; `log()` reads them. */
async function logged(fn, extraEnv = {}) {
  const file = path.join(tempDir("pi-codegraph-verbs-log-"), "log.jsonl");
  return withEnv({ FAKE_CG_LOG: file, ...extraEnv }, () => fn(() => readLog(file)));
}
const argvs = (log) => log().map((r) => r.argv);

const READY_SNIPPET = /structural questions/;

test("file watching is off (init then offers git hooks) as CodeGraph decides: CODEGRAPH_NO_WATCH=1, else a WSL Windows drive unless CODEGRAPH_FORCE_WATCH=1", () => {
  const { watchOff } = createRequire(import.meta.url)("../../lib/pi/commands/verbs.js");
  assert.deepEqual(watchOff("/home/u/p", { CODEGRAPH_NO_WATCH: "1" }), { is: "env", value: "1" });
  // CodeGraph reads exactly "1": any other value leaves watching on.
  for (const other of ["", "0", "true", "yes", " 1"])
    assert.equal(watchOff("/home/u/p", { CODEGRAPH_NO_WATCH: other }), null, JSON.stringify(other));
  const wsl = { WSL_DISTRO_NAME: "Ubuntu" };
  if (process.platform === "linux") {
    assert.deepEqual(watchOff("/mnt/c/code/p", wsl), { is: "wsl", mount: "/mnt/c" });
    assert.deepEqual(watchOff("/mnt/D", wsl), { is: "wsl", mount: "/mnt/D" });
    assert.equal(watchOff("/mnt/c/code/p", { ...wsl, CODEGRAPH_FORCE_WATCH: "1" }), null);
    assert.deepEqual(watchOff("/mnt/c/p", { ...wsl, CODEGRAPH_NO_WATCH: "1", CODEGRAPH_FORCE_WATCH: "1" }), {
      is: "env",
      value: "1",
    });
  }
  assert.equal(watchOff("/mnt/wsl/p", wsl), null, "a Linux mount, not a Windows drive");
  assert.equal(watchOff("/home/u/p", wsl), null, "WSL, but on the Linux filesystem");
});

for (const impl of implementations) {
  describe(impl.name, () => {
    before(() => {
      pkg = impl.module;
    });

    test("completion: every verb with a line each, those for the state first (Pi shows five); matching the prefix; --yes after a writing verb and a dash", async () => {
      const s = await session(makeWorkspace());
      const all = await s.command.getArgumentCompletions("");
      const listed = all.map((i) => i.value);
      // Ready: the everyday verbs first, then the rest in the help's order.
      assert.deepEqual(listed.slice(0, 5), ["sync", "changes", "status", "doctor", "help"]);
      assert.deepEqual(
        [...listed].sort(),
        [...Object.keys(createRequire(import.meta.url)("../../lib/words/command.js").VERB_LINES)].sort(),
      );
      // No index yet: init first.
      const bare = await session(makeWorkspace({ index: false }));
      assert.equal((await bare.command.getArgumentCompletions(""))[0].value, "init");
      for (const item of all) assert.ok(item.description.length > 10, item.value);
      assert.deepEqual(
        (await s.command.getArgumentCompletions("u")).map((i) => i.value),
        ["uninit", "unlock"],
      );
      assert.equal(await s.command.getArgumentCompletions("x"), null);
      assert.deepEqual(
        (await s.command.getArgumentCompletions("rebuild -")).map((i) => i.value),
        ["rebuild --yes"],
      );
      // A verb typed in full, or followed by a space only: nothing shown, so Enter runs it as typed.
      assert.equal(await s.command.getArgumentCompletions("rebuild"), null);
      assert.equal(await s.command.getArgumentCompletions("rebuild "), null);
      assert.deepEqual(
        (await s.command.getArgumentCompletions("init --y")).map((i) => i.value),
        ["init --yes"],
      );
      assert.equal(await s.command.getArgumentCompletions("status "), null, "status reads only: nothing to confirm");
    });

    test("init, confirmed: runs `init --yes --verbose`, says the measured time and CodeGraph's summary; the tool is ready at once", async () => {
      const ws = makeWorkspace({ index: false });
      const s = await session(ws);
      assert.match(s.tool().promptGuidelines[0], /^Do not call codegraph_explore/);
      assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph: no index");
      await logged(async (log) => {
        const said = await s.cg("init");
        assert.deepEqual(argvs(log), [["init", "--yes", "--verbose"]]);
        assert.equal(log()[0].cwd, ws);
        assert.equal(s.ui.confirms.length, 1);
        const { title, body } = s.ui.confirms[0];
        assert.equal(title, "Create the CodeGraph index?");
        assert.match(body, new RegExp(`Creates ${ws}/\\.codegraph/`));
        assert.match(body, /may take minutes and much memory/);
        assert.doesNotMatch(body, /git hooks/, "file watching is on here: no hooks");
        assert.match(said, /^\/codegraph init: done in \d+\.\d s; the agent's CodeGraph tools answer from it now\./);
        assert.match(said, /Indexed 7 files/);
        assert.match(said, /^ {2}43 nodes, 81 edges$/m);
        // One duration, the one measured: CodeGraph's own (its indexing alone) would disagree with it.
        assert.equal(said.match(/\d(?:\.\d+)? ?(?:ms|s)\b/g)?.length, 1, said);
        assert.doesNotMatch(said, /Initialized in/, "the workspace is not said again");
        assert.doesNotMatch(said, /wal-valve/, "CodeGraph's debug lines are no summary");
        assert.match(said, /the agent's CodeGraph tools answer from it now\./);
      });
      assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")));
      // Readiness refreshed at once: no turn in between.
      assert.match(s.tool().promptSnippet, READY_SNIPPET);
      assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph");
    });

    test("init where file watching is off, in a git repository of its own: the dialog says CodeGraph installs git hooks", async () => {
      const ws = makeWorkspace({ index: false });
      fs.mkdirSync(path.join(ws, ".git"));
      const s = await session(ws, { confirm: false });
      await logged(async (log) => {
        await withEnv({ CODEGRAPH_NO_WATCH: "1" }, () => s.cg("init"));
        assert.deepEqual(log(), []);
      });
      assert.match(s.ui.confirms[0].body, /CODEGRAPH_NO_WATCH=1/);
      assert.match(s.ui.confirms[0].body, /git hooks \(post-commit, post-merge, post-checkout\)/);
    });

    test("a .git file (another project's git directory): init's dialog says no git hooks are installed, uninit's names none", async () => {
      const ws = makeWorkspace({ index: false });
      fs.writeFileSync(path.join(ws, ".git"), "gitdir: ../otherproj/.git\n");
      const s = await session(ws, { confirm: false });
      await withEnv({ CODEGRAPH_NO_WATCH: "1" }, () => s.cg("init"));
      assert.match(s.ui.confirms[0].body, /no git hooks of its own \(\.git\/hooks\), so CodeGraph installs none/);
      assert.doesNotMatch(s.ui.confirms[0].body, /installs git hooks/);
      writeIndex(ws);
      await s.cg("uninit");
      assert.match(
        s.ui.confirms[1].body,
        /^Deletes .*\/\.codegraph\/ \(\d+ (B|KiB)\)\. The agent's CodeGraph tools stop answering/,
      );
    });

    test("init where the workspace has its own index: says so, points at sync/rebuild, runs nothing", async () => {
      const ws = makeWorkspace();
      const s = await session(ws);
      const before_ = hashTree(ws);
      await logged(async (log) => {
        const said = await s.cg("init --yes");
        assert.deepEqual(log(), []);
        assert.match(
          said,
          /^\/codegraph init: this workspace already has its index \(.*\.codegraph\); \/codegraph sync updates it, \/codegraph rebuild recreates it\.$/,
        );
        assert.match(said, /\/codegraph sync/);
        assert.match(said, /\/codegraph rebuild/);
      });
      assert.equal(s.ui.confirms.length, 0);
      assert.deepEqual(hashTree(ws), before_);
    });

    for (const [verb, argv, body] of [
      ["rebuild", ["index", "--verbose"], /stops a running CodeGraph MCP daemon for this project/],
      // Not a git repository: no word of git hooks (below, one that is).
      [
        "uninit",
        ["uninit", "--force"],
        /^Deletes .*\/\.codegraph\/ \(4 KiB\)\. The agent's CodeGraph tools stop answering here/,
      ],
    ]) {
      test(`${verb}: asks first, then runs \`${argv.join(" ")}\`; declined, nothing runs and nothing changes`, async () => {
        const ws = makeWorkspace();
        const s = await session(ws, { confirm: () => s.answer ?? false });
        const untouched = hashTree(ws);
        await logged(async (log) => {
          const said = await s.cg(verb);
          assert.deepEqual(log(), []);
          assert.equal(said, `/codegraph ${verb}: cancelled, nothing changed.`);
          assert.deepEqual(hashTree(ws), untouched);
          assert.match(s.ui.confirms[0].body, body);

          s.answer = true;
          const done = await s.cg(verb);
          assert.deepEqual(argvs(log), [argv]);
          assert.match(done, new RegExp(`^/codegraph ${verb}: done in `));
        });
        assert.equal(s.ui.confirms.length, 2);
        if (verb === "uninit") {
          assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
          assert.match(s.tool().promptGuidelines[0], /^Do not call codegraph_explore/, "readiness followed");
          assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph: no index");
        } else assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")));
        if (verb === "sync" || verb === "rebuild")
          assert.notDeepEqual(hashTree(ws), untouched, `${verb} rewrote the database`);
      });
    }

    test("sync, and unlock with no lock file, have nothing to decide: they run without a dialog", async () => {
      const ws = makeWorkspace();
      const s = await session(ws, { confirm: false });
      await logged(async (log) => {
        assert.match(await s.cg("sync"), /^\/codegraph sync: done in /);
        assert.match(await s.cg("unlock"), /^\/codegraph unlock: (done in |no stale lock was there; nothing changed)/);
        assert.deepEqual(argvs(log), [["sync"], ["unlock"]]);
      });
      assert.equal(s.ui.confirms.length, 0);
    });

    test("uninit in a git repository names CodeGraph's git hooks in its dialog", async () => {
      const ws = makeWorkspace();
      fs.mkdirSync(path.join(ws, ".git"));
      const s = await session(ws, { confirm: false });
      await logged(async (log) => {
        assert.equal(await s.cg("uninit"), "/codegraph uninit: cancelled, nothing changed.");
        assert.deepEqual(log(), []);
      });
      assert.match(s.ui.confirms[0].body, /\(4 KiB\) and CodeGraph's git hooks in this repository\./);
    });

    test("--yes skips the dialog", async () => {
      const ws = makeWorkspace();
      const s = await session(ws, { confirm: false });
      await logged(async (log) => {
        await s.cg("rebuild --yes");
        assert.deepEqual(argvs(log), [["index", "--verbose"]]);
      });
      assert.equal(s.ui.confirms.length, 0);
    });

    test("unlock: a stale lock is removed; a live CodeGraph writer's lock is refused", async () => {
      const ws = makeWorkspace();
      const lock = path.join(ws, ".codegraph", "codegraph.lock");
      fs.writeFileSync(lock, "2147483646"); // no such process: stale
      const s = await session(ws);
      await logged(async (log) => {
        const said = await s.cg("unlock");
        assert.match(s.ui.confirms[0].body, new RegExp(`^Removes ${lock}, left by an interrupted CodeGraph write`));
        assert.deepEqual(argvs(log), [["unlock"]]);
        assert.match(said, /Removed stale lock file/);
      });
      assert.equal(fs.existsSync(lock), false);

      fs.writeFileSync(lock, String(process.pid)); // a live writer (this process stands in for it)
      try {
        await logged(async (log) => {
          const said = await s.cg("unlock --yes");
          assert.deepEqual(log(), []);
          assert.match(
            said,
            new RegExp(`refused while a live CodeGraph process writes the index \\(.*pid ${process.pid}`),
          );
        });
        assert.ok(fs.existsSync(lock));
      } finally {
        fs.rmSync(lock, { force: true });
      }
    });

    describe("Pi started in a subdirectory of an indexed project", () => {
      for (const verb of ["status", "sync", "rebuild", "uninit", "unlock"]) {
        test(`${verb}: refused, naming the enclosing index and what to do; the ancestor's index is byte-identical`, async () => {
          const project = makeWorkspace();
          const sub = path.join(project, "packages", "core");
          fs.mkdirSync(sub, { recursive: true });
          const s = await session(sub);
          const untouched = hashTree(project);
          await logged(async (log) => {
            const said = await s.cg(`${verb} --yes`);
            assert.deepEqual(log(), [], "no CodeGraph process started");
            assert.equal(
              said,
              `/codegraph ${verb}: refused: ${sub} has no index of its own, and the enclosing project ${project} is acted on only by name (/codegraph projects add ${project}, then /codegraph ${verb} <its name>); /codegraph init offers its index or a new one here.`,
            );
          });
          assert.deepEqual(hashTree(project), untouched);
        });
      }

      test("init under an enclosing project's index: Pi's select offers that index or a new one here; each does only that", async () => {
        const project = makeWorkspace();
        writeIndex(project); // one `/codegraph projects add` takes (CodeGraph's tables in it)
        const sub = path.join(project, "packages", "core");
        fs.mkdirSync(sub, { recursive: true });
        const ancestorDb = path.join(project, ".codegraph", "codegraph.db");
        const untouched = fs.readFileSync(ancestorDb);
        const answers = [undefined, 0, 1]; // Esc, then "its index", then "a new index here"
        const s = await session(sub, { select: ({ options }) => options[answers.shift()] });
        await logged(async (log) => {
          assert.equal(await s.cg("init"), "/codegraph init: cancelled, nothing changed.");
          assert.equal(
            await s.cg("init"),
            `Added ../../../${path.basename(project)} (${project}): the codegraph tools can now ask it by that name; kept for this workspace.`,
          );
          assert.ok(!fs.existsSync(path.join(sub, ".codegraph")), "its index: nothing written here");
          assert.match(s.tool().promptSnippet, READY_SNIPPET, "the tools answer from the enclosing index");
          await s.cg("init");
          assert.deepEqual(argvs(log), [["init", "--yes", "--verbose"]], "one write, for the new index only");
        });
        assert.equal(s.ui.selects.length, 3);
        assert.equal(s.ui.confirms.length, 0, "the choice is the consent: no second dialog");
        assert.equal(
          s.ui.selects[0].title,
          `The enclosing project ${project} has a CodeGraph index. Which should the tools use here?`,
        );
        assert.deepEqual(s.ui.selects[0].options, [
          `Its index (adds ${project} as a project; nothing is indexed)`,
          `A new index of ${sub} only (codegraph init)`,
        ]);
        assert.ok(fs.existsSync(path.join(sub, ".codegraph", "codegraph.db")));
        assert.deepEqual(fs.readFileSync(ancestorDb), untouched);
      });

      test("init under an enclosing project's index where Pi has no select: the confirm asks", async () => {
        const project = makeWorkspace();
        const sub = path.join(project, "packages", "core");
        fs.mkdirSync(sub, { recursive: true });
        const s = await session(sub);
        await s.cg("init");
        assert.equal(s.ui.confirms[0].title, "Create the CodeGraph index?");
        assert.ok(fs.existsSync(path.join(sub, ".codegraph", "codegraph.db")));
      });
    });

    describe("without a UI (print and json modes)", () => {
      for (const verb of ["rebuild", "uninit"]) {
        test(`${verb} without --yes refuses with the exact command; with --yes it runs`, async () => {
          const ws = makeWorkspace();
          const s = await session(ws, { hasUI: false });
          const untouched = hashTree(ws);
          await logged(async (log) => {
            const out = await s.cg(verb);
            assert.deepEqual(log(), []);
            assert.match(out, new RegExp(`To run it, type: /codegraph ${verb} --yes\\n$`));
            assert.deepEqual(hashTree(ws), untouched);
            const done = await s.cg(`${verb} --yes`);
            assert.equal(log().length, 1);
            assert.match(done, new RegExp(`^/codegraph ${verb}: done in `));
          });
        });
      }

      test("init, sync and status run without --yes (the typed command is the consent)", async () => {
        const ws = makeWorkspace({ index: false });
        const s = await session(ws, { hasUI: false });
        await logged(async (log) => {
          assert.match(await s.cg("init"), /^\/codegraph init: done in /);
          assert.match(
            await s.cg("sync"),
            /^\/codegraph sync: done in \d+\.\d s; it was already up to date; the agent's CodeGraph tools answer from it now\./,
          );
          assert.match(await s.cg("status"), /^CodeGraph index of /);
          assert.deepEqual(
            argvs(log).map((a) => a[0]),
            ["init", "sync", "status"],
          );
        });
        assert.deepEqual(s.ui.confirms, []);
      });
    });

    test("status: CodeGraph's report read from `status --json`, with the lock, versions and what to do", async () => {
      const ws = makeWorkspace();
      fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.lock"), "2147483646");
      const s = await session(ws);
      const facts = {
        pendingChanges: { added: 1, modified: 2, removed: 3 },
        index: { builtWithVersion: "1.5.0", reindexRecommended: true, state: "partial", pendingRefs: 4 },
        worktreeMismatch: null,
      };
      const said = await logged(
        async (log) => {
          const out = await s.cg("status");
          assert.deepEqual(argvs(log), [["status", "--json"]]);
          return out;
        },
        { FAKE_CG_STATUS: JSON.stringify(facts) },
      );
      assert.match(said, new RegExp(`^CodeGraph index of ${ws}`));
      assert.match(said, /versions: CLI 9\.9\.9-fake; index built with 1\.5\.0 \(they differ\)/);
      assert.match(said, /state: partial/);
      assert.match(said, /run \/codegraph rebuild \(sync will not fix this\)/);
      assert.match(said, /pending changes: 1 added, 2 modified, 3 removed since the last write; run \/codegraph sync/);
      assert.match(said, /pending references: 4 not yet resolved/);
      assert.match(said, /lock: stale \(.*codegraph\.lock\): no CodeGraph writer runs; \/codegraph unlock removes it/);
      assert.match(said, /last indexed: \d+ (?:days|h|min) ago \(2026-01-02 03:04 UTC\)/);
      assert.match(said, /size: 7 files, 43 nodes, 81 edges; database 4 KiB/);
      assert.match(said, /migrates an index built by an older CodeGraph in place/);
      assert.equal(s.ui.confirms.length, 0, "status reads only: no dialog");
    });

    describe("progress and cancel", () => {
      test("interactive: a bordered loader shows the phase, file counts and elapsed time; Esc stops the CLI's whole tree", async () => {
        const ws = makeWorkspace();
        const gate = tempDir("pi-codegraph-gate-");
        const s = await session(ws, { custom: "tui" });
        await logged(
          async () => {
            const running = s.cg("rebuild --yes");
            const pids = await waitFor(() => readJsonFile(path.join(gate, "started.json")), {
              what: "the fake to reach its gate",
            });
            const loader = await waitFor(() => s.ui.customs[0], { what: "the loader" });
            await waitFor(() => /parsing 3\/7 files · ▰+▱+ 36% · [1-9]\d* s/.test(renderText(loader)), {
              timeoutMs: 10000,
              what: `progress with file counts and a second elapsed, got: ${renderText(loader)}`,
            });
            assert.match(renderText(loader), /codegraph rebuild: step 2 of 4, parsing 3\/7 files · ▰▰▰▰▱▱▱▱▱▱ 36%/);
            assert.ok(isAlive(pids.self) && isAlive(pids.grandchild));
            loader.handleInput("\x1b"); // Esc
            const said = await running;
            assert.match(
              said,
              /^\/codegraph rebuild: cancelled after \d+\.\d s, CodeGraph stopped; the index may hold only part of the project: \/codegraph rebuild builds it whole, \/codegraph unlock uses it as it is\.$/,
            );
            await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
              timeoutMs: 5000,
              what: "the CLI and its grandchild to be gone",
            });
          },
          { FAKE_CG_GATE: gate },
        );
        assert.deepEqual(
          s.ui.statusLog.filter((e) => /rebuild/.test(e.text)),
          [],
          "the TUI used the loader",
        );
      });

      test("a host in another mode than tui (rpc) that offers custom(): no component is built, the status slot shows progress", async () => {
        const ws = makeWorkspace({ index: false });
        const s = await session(ws, { custom: "tui", mode: "rpc" });
        await logged(async () => {
          assert.match(await s.cg("init --yes"), /^\/codegraph init: done in/m);
        });
        assert.equal(s.ui.customs.length, 0, "custom() is for ctx.mode tui");
        assert.ok(
          s.ui.statusLog.some((e) => e.key === "codegraph" && /init/.test(e.text)),
          "progress in the slot",
        );
      });

      test("rpc-like (custom() unavailable): the status slot shows progress naming /codegraph cancel; a second write is refused; /codegraph cancel stops the tree", async () => {
        const ws = makeWorkspace({ index: false });
        const gate = tempDir("pi-codegraph-gate-");
        const s = await session(ws, { custom: "none" });
        await logged(
          async (log) => {
            const running = s.cg("init --yes");
            const pids = await waitFor(() => readJsonFile(path.join(gate, "started.json")), {
              what: "the fake to reach its gate",
            });
            const progress = () => s.ui.statusLog.filter((e) => e.key === "codegraph").map((e) => e.text);
            await waitFor(
              () =>
                progress().some((t) => /init: step 2 of 4, parsing 3\/7 files · ▰▰▰▰▱▱▱▱▱▱ 36% · [1-9]\d* s/.test(t)),
              {
                timeoutMs: 10000,
                what: `status progress, got: ${progress().join(" | ")}`,
              },
            );
            assert.ok(progress().every((t) => t.startsWith("⬡") || /\/codegraph cancel stops it$/.test(t)));

            const refused = await s.cg("sync --yes");
            assert.match(
              refused,
              /refused while \/codegraph init is still running in this workspace; wait for it, or stop it with \/codegraph cancel\./,
            );
            assert.equal(log().length, 1, "the second write started nothing");

            const cancelled = await s.cg("cancel");
            assert.equal(cancelled, "/codegraph cancel: stopping /codegraph init…");
            const said = await running;
            assert.match(
              said,
              /^\/codegraph init: cancelled after \d+\.\d s, CodeGraph stopped; the index may be partial: \/codegraph rebuild finishes it, \/codegraph uninit removes it\.$/m,
            );
            assert.match(said, /\/codegraph rebuild finishes it, \/codegraph uninit removes it/);
            await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
              timeoutMs: 5000,
              what: "the CLI and its grandchild to be gone",
            });
            assert.equal(await s.cg("cancel"), "/codegraph cancel: no /codegraph write is running in this workspace.");
          },
          { FAKE_CG_GATE: gate },
        );
        // The slot is readiness again afterwards.
        assert.match(s.ui.statuses.get("codegraph"), /^⬡ codegraph/);
      });
    });

    test("a write CodeGraph fails: its own subcommand, exit code and stderr, and the measured time", async () => {
      const ws = makeWorkspace();
      const s = await session(ws);
      const said = await withEnv(
        { FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "1", FAKE_CG_STDERR: "✗ Sync failed: disk full\n" },
        () => s.cg("sync --yes"),
      );
      assert.match(
        said,
        /^\/codegraph sync failed after \d+\.\d s: codegraph sync exited with code 1\.\nstderr:\n✗ Sync failed: disk full$/,
      );
      assert.equal(s.ui.notes.at(-1).type, "error");
    });

    test("a verb the installed CodeGraph lacks is not offered and runs nothing (init --yes came in 1.6.0)", async () => {
      await logged(
        async (log) => {
          const ws = makeWorkspace({ index: false });
          const s = await session(ws);
          const offered = (await s.command.getArgumentCompletions("")).map((i) => i.value);
          assert.ok(!offered.includes("init") && offered.includes("sync"), offered.join());
          const said = await s.cg("init --yes");
          assert.match(said, /CodeGraph 1\.4\.1 has no `init --yes` \(added in 1\.6\.0\)/);
          assert.deepEqual(
            argvs(log).filter((a) => a[0] !== "--version"),
            [],
          );
          assert.ok(!fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")));
        },
        // A fresh executable: a version is read once per executable, and this file's shared fake said 9.9.9-fake.
        { FAKE_CG_VERSION: "1.4.1", PATH: fakeBinDir() },
      );
    });
  });
}
