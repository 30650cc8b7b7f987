// What the model receives: full output kept in a private temp file when truncated, clean text,
// redacted stderr. Driven by the fake CLI through explore().
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { useFakeCli, withEnv } from "../helpers/index.mjs";
import { ALL_TOOLS, calleeOf, toolCall } from "../helpers/tools.mjs";

const lines = (n) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

// Against explore() and each focused tool (helpers/tools.mjs), each cut at its own caps.
for (const [impl, tool] of implementations.flatMap((i) => ALL_TOOLS.map((glue) => [i, toolCall(glue)]))) {
  describe(`${impl.name}, ${tool.label}`, () => {
    const { releaseFullOutputs } = impl.module;
    const explore = tool.adapt(impl.module);

    const fake = useFakeCli();

    test("full-output files do not outlive the process, even through process.exit()", () => {
      const script = `${calleeOf(tool, impl)}("q", ${JSON.stringify(fake.ws)}).then((r) => { console.log(r.details.fullOutputPath); process.exit(0); })`;
      const r = spawnSync(process.execPath, ["-e", script], {
        env: { ...process.env, FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "2500" },
        encoding: "utf8",
      });
      assert.equal(r.status, 0, r.stderr);
      const file = r.stdout.trim();
      assert.ok(path.isAbsolute(file), r.stdout);
      assert.equal(fs.existsSync(file), false, `${file} survived its process`);
    });

    test("a secret whose name fell off the start of the stderr tail is not shown", async () => {
      const stderr = `OPENAI_API_KEY=sk-live-THE-SECRET-VALUE\n${"f".repeat(4096 - 20)}\nlast words`;
      const err = await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "1", FAKE_CG_STDERR: stderr }, () =>
        explore("q", fake.ws).then(
          () => assert.fail("expected an error"),
          (e) => e,
        ),
      );
      assert.ok(!err.details.stderrTail.includes("SECRET"), err.details.stderrTail.slice(0, 80));
      assert.ok(err.details.stderrTail.endsWith("last words"));
    });

    test("a truncated answer names a private temp file holding the full output", async () => {
      const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" }, () => explore("q", fake.ws));
      const file = result.details.fullOutputPath;
      assert.ok(file, "a full-output file is reported");
      assert.equal(fs.readFileSync(file, "utf8"), lines(3000));
      assert.equal(result.details.fullOutputBytes, Buffer.byteLength(lines(3000)));
      assert.ok(result.text.includes(file), "the marker tells the model where it is");
      assert.match(result.text, /use the read tool/);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.ok(!file.startsWith(fake.ws), "never in the workspace");
      assert.ok(file.startsWith(fs.realpathSync(os.tmpdir())) || file.startsWith(os.tmpdir()));
      assert.ok(releaseFullOutputs() >= 1);
      assert.equal(fs.existsSync(file), false, "released files are deleted");
    });

    test("an answer within the limits leaves no file behind", async () => {
      const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "10" }, () => explore("q", fake.ws));
      assert.equal(result.details.fullOutputPath ?? null, null);
    });

    test("TMPDIR inside the workspace is not used for the full output", async () => {
      const inside = path.join(fake.ws, "tmp");
      fs.mkdirSync(inside, { recursive: true });
      const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "2500", TMPDIR: inside }, () =>
        explore("q", fake.ws),
      );
      assert.ok(result.details.fullOutputPath);
      assert.ok(!result.details.fullOutputPath.startsWith(fake.ws), result.details.fullOutputPath);
      assert.deepEqual(fs.readdirSync(inside), []);
      releaseFullOutputs();
    });

    test("terminal escapes are stripped; tabs and newlines are kept", async () => {
      const stdout = "\u001b[1;31mFlow\u001b[0m\n1\tcheckout()\r\n\u001b]0;title\u0007done\u0007\n";
      const result = await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: stdout }, () =>
        explore("q", fake.ws),
      );
      assert.equal(result.text, "Flow\n1\tcheckout()\ndone\n");
    });

    test("secrets in the stderr tail are redacted before anyone sees them", async () => {
      const stderr =
        "boom\nGITHUB_TOKEN=ghp_secret123 DB_PASSWORD=hunter2\nAuthorization: Bearer eyJabc.def\nOPENAI_API_KEY='sk-xyz'\n";
      const err = await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "1", FAKE_CG_STDERR: stderr }, () =>
        explore("q", fake.ws).then(
          () => assert.fail("expected an error"),
          (e) => e,
        ),
      );
      assert.equal(err.code, "CODEGRAPH_EXIT");
      for (const secret of ["ghp_secret123", "hunter2", "eyJabc.def", "sk-xyz"]) {
        assert.ok(!err.message.includes(secret), `${secret} leaked into the message`);
        assert.ok(!err.details.stderrTail.includes(secret), `${secret} leaked into details`);
      }
      assert.match(err.message, /GITHUB_TOKEN=\[REDACTED\]/);
      assert.match(err.message, /Bearer \[REDACTED\]/);
      assert.match(err.message, /boom/);
    });
  });
}
