// `/codegraph init` and `uninit` never write git hooks outside the workspace, with the real pinned
// CodeGraph 1.6.1: with file watching off (CODEGRAPH_NO_WATCH=1) its init installs a marked block
// into the hooks directory `git rev-parse --git-path hooks` names, and its uninit strips that block
// there, wherever git says it is: another project's, through a `.git` file (worktrees, submodules),
// a linked `.git` or `hooks`, `core.hooksPath`, an enclosing repository. run() of the verbs'
// descriptions through both runners; the other project's hooks are byte-identical afterwards (a
// workspace with its own `.git/` still gets its hooks: verbs-real.test.mjs).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { REAL_CLI_PATH, root, SYSTEM_DIRS, tempDir, withEnv } from "../helpers/index.mjs";
import { snapshot } from "../helpers/snapshot.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
const realBin = path.join(root, "node_modules", ".bin");
const gitMissing = SYSTEM_DIRS.some((d) => fs.existsSync(path.join(d, "git"))) ? false : "git is not installed";
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
// The real CLI's PATH (helpers: its launcher's dirname and readlink), and git for its hooks.
const realPath = REAL_CLI_PATH;
const MARKER = "# >>> codegraph sync hook >>>";

const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });

/**
 * `outer/otherproj`, a git repository with a commit and a post-commit hook of its own, and the
 * workspace `ws` (the shop fixture, unindexed) that `shape` makes; `hooks` is the other project's
 * hooks directory.
 */
function setUp(shape) {
  const outer = tempDir("pi-codegraph-hooks-real-");
  const other = path.join(outer, "otherproj");
  fs.mkdirSync(other);
  git(other, "init", "-q");
  fs.writeFileSync(path.join(other, "README"), "other\n");
  git(other, "add", "README");
  git(other, "commit", "-q", "-m", "first");
  const hooks = path.join(other, ".git", "hooks");
  fs.writeFileSync(path.join(hooks, "post-commit"), "#!/bin/sh\necho other project\n", { mode: 0o755 });
  const ws = shape(outer, other);
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
  fs.rmSync(path.join(ws, ".codegraph"), { recursive: true, force: true });
  return { outer, ws, hooks };
}

/** A workspace with its own `.git/` (git init), then `then(ws, other)`. */
const ownRepo = (then) => (outer, other) => {
  const ws = path.join(outer, "ws");
  fs.mkdirSync(ws);
  git(ws, "init", "-q");
  then(ws, other);
  return ws;
};

const OUTSIDE = {
  ".git is a file: gitdir: ../otherproj/.git": (outer) => {
    const ws = path.join(outer, "ws");
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, ".git"), "gitdir: ../otherproj/.git\n");
    return ws;
  },
  "a git worktree of the other project": (outer, other) => {
    git(other, "worktree", "add", "-q", "--detach", "../ws");
    return path.join(outer, "ws");
  },
  ".git -> ../otherproj/.git": (outer) => {
    const ws = path.join(outer, "ws");
    fs.mkdirSync(ws);
    fs.symlinkSync("../otherproj/.git", path.join(ws, ".git"));
    return ws;
  },
  ".git/hooks -> the other project's hooks": ownRepo((ws, other) => {
    fs.rmSync(path.join(ws, ".git", "hooks"), { recursive: true, force: true });
    fs.symlinkSync(path.join(other, ".git", "hooks"), path.join(ws, ".git", "hooks"));
  }),
  ".git/hooks/post-commit -> the other project's post-commit": ownRepo((ws, other) => {
    fs.symlinkSync(path.join(other, ".git", "hooks", "post-commit"), path.join(ws, ".git", "hooks", "post-commit"));
  }),
  ".git/hooks/post-commit a hard link to the other project's post-commit": ownRepo((ws, other) => {
    fs.linkSync(path.join(other, ".git", "hooks", "post-commit"), path.join(ws, ".git", "hooks", "post-commit"));
  }),
  ".git/commondir names the other project's .git": ownRepo((ws, other) => {
    fs.writeFileSync(path.join(ws, ".git", "commondir"), `${path.join(other, ".git")}\n`);
  }),
  "core.hooksPath in the repository's config points out": ownRepo((ws) => {
    git(ws, "config", "core.hooksPath", "../otherproj/.git/hooks");
  }),
  "the workspace is a subdirectory of the other project": (_outer, other) => path.join(other, "ws"),
};

const env = (more = {}) => ({
  PATH: realPath.join(path.delimiter),
  DO_NOT_TRACK: "1",
  CODEGRAPH_NO_WATCH: "1",
  PI_CODEGRAPH_BIN: undefined,
  GIT_CONFIG_PARAMETERS: undefined,
  GIT_CONFIG_COUNT: undefined,
  GIT_CONFIG_KEY_0: undefined,
  GIT_CONFIG_VALUE_0: undefined,
  GIT_DIR: undefined,
  ...more,
});

/** Runs `verb` in `ws` through `impl`; its answer text (throws its failure). */
const runVerb = (impl, verb, ws, more) =>
  withEnv(env(more), () => impl.module.run(verbCommand(verb), ws)).then((r) => r.text);

for (const impl of implementations) {
  describe(`${impl.name}: CodeGraph's git hooks with the real CLI, file watching off`, {
    skip: cliMissing || gitMissing,
    timeout: 120000,
  }, () => {
    for (const [name, shape] of Object.entries(OUTSIDE)) {
      test(`${name}: init indexes; the other project's hooks are byte-identical`, async () => {
        const { ws, hooks } = setUp(shape);
        const before = snapshot(hooks);
        await runVerb(impl, "init", ws);
        assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")), "init indexed the workspace");
        assert.deepEqual(snapshot(hooks), before);
      });
    }

    test("a .git file: uninit leaves the other project's own CodeGraph block where it is", async () => {
      const { ws, hooks } = setUp(OUTSIDE[".git is a file: gitdir: ../otherproj/.git"]);
      await runVerb(impl, "init", ws);
      // As the other project's own CodeGraph init leaves it.
      const block = `${MARKER}\nif command -v codegraph >/dev/null 2>&1; then codegraph sync; fi\n# <<< codegraph sync hook <<<\n`;
      fs.writeFileSync(path.join(hooks, "post-merge"), `#!/bin/sh\n${block}`, { mode: 0o755 });
      const before = snapshot(hooks);
      await runVerb(impl, "uninit", ws);
      assert.ok(!fs.existsSync(path.join(ws, ".codegraph")), "uninit removed the index");
      assert.deepEqual(snapshot(hooks), before);
    });

    /** The user's own environment naming the other project's hooks (or its repository). */
    const USER_ENV = {
      GIT_CONFIG_PARAMETERS: (hooks) => ({ GIT_CONFIG_PARAMETERS: `'core.hooksPath'='${hooks}'` }),
      GIT_CONFIG_COUNT: (hooks) => ({
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "core.hooksPath",
        GIT_CONFIG_VALUE_0: hooks,
      }),
      GIT_DIR: (hooks) => ({ GIT_DIR: path.dirname(hooks) }),
    };
    for (const [name, more] of Object.entries(USER_ENV)) {
      test(`the user's ${name} naming the other project's hooks: they stay untouched`, async () => {
        const { ws, hooks } = setUp(ownRepo(() => {}));
        const before = snapshot(hooks);
        await runVerb(impl, "init", ws, more(hooks));
        assert.deepEqual(snapshot(hooks), before);
      });
    }
  });
}
