// Never leaks: secrets in what the CLI says are masked, and full-output files stay private,
// outside the workspace, owned by their session and gone when their host is.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { hostWith } from "../helpers/pi-host.mjs";
import { runNode } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const b64 = (text) => Buffer.from(text).toString("base64");

const secrets = {
  "AWS_SECRET_ACCESS_KEY=": ["AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENG"],
  "AKIA access key id": ["using key AKIAIOSFODNN7EXAMPLE for s3", "AKIAIOSFODNN7EXAMPLE"],
  "SECRET_KEY=": ["SECRET_KEY=django-insecure-abc123", "django-insecure"],
  "PRIVATE_KEY=": ["PRIVATE_KEY=0xdeadbeefcafe", "deadbeefcafe"],
  'JSON "apiKey"': ['{"apiKey": "AIzaSyD-json-secret-value"}', "json-secret-value"],
  "x-api-key header": ["x-api-key: header-secret-123", "header-secret-123"],
  "Authorization: Basic": ["Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"],
  "Authorization: token": ["Authorization: token gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F"],
  "URL credentials": ["fetch https://bob:hunter2pass@registry.example/x failed", "hunter2pass"],
  "--password value": ["run --password s3cr3t-flag-value now", "s3cr3t-flag-value"],
  "passwd=": ["passwd=letmein-please", "letmein-please"],
  "bare ghp_ token": ["token ghp_abcdefghijklmnopqrstuvwxyz0123456789 used", "ghp_abcdefghijklmnop"],
  "bare sk- key": ["key sk-proj-abcdefghijklmnopqrstuvwxyz012345 rejected", "abcdefghijklmnopqrstuvwxyz012345"],
  'API_KEY="unterminated': ['API_KEY="unterminated-secret-value and more', "unterminated-secret"],
  "value with ; and ,": ["PASSWORD=part1;part2,part3", "part2"],
  "PyPI token": ["upload with pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6 refused", "cHlwaS5vcmcCJGFi"],
  "Docker Hub token": ["login dckr_pat_abcdefghijklmnopqrstuvwxyz0 denied", "abcdefghijklmnopqrstuvwxyz0"],
  "SendGrid key": ["SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789abcdefg", "abcdefghijklmnopqrstuv"],
  "Google OAuth token": ["ya29.a0AfH6SMBabcdefghijklmnopqrstuvwxyz0123456789 expired", "a0AfH6SMB"],
  "Azure AccountKey": ["DefaultEndpointsProtocol=https;AccountName=a;AccountKey=c2VjcmV0a2V5Kw==;", "c2VjcmV0a2V5Kw"],
  ".netrc password": ["machine api.example.com login me password netrc-s3cr3t", "netrc-s3cr3t"],
  "Slack webhook": ["post https://hooks.slack.com/services/T0000/B0000/XXXXsecretXXXX failed", "XXXXsecretXXXX"],
  "Discord webhook": ["post https://discord.com/api/webhooks/1234/discord-secret-token failed", "discord-secret-token"],
  "PEM private key": [
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7pemsecretline\nmoresecretline==\n-----END RSA PRIVATE KEY-----",
    "pemsecretline",
  ],
};

eachRunner("never leaks", ({ exploreWith, releaseFullOutputs, callee }, runner) => {
  test("secrets in the stderr tail: every form masked, the rest of the line kept", async () => {
    const lines = Object.values(secrets).map(([line]) => line);
    const stderr = `${lines.join("\n")}\nplain diagnostic line\n`;
    const fake = fakeCli([
      ["stderrBase64", b64(stderr)],
      ["exit", 3],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
    for (const [label, [, secret]] of Object.entries(secrets)) {
      assert.ok(!err.message.includes(secret), `${label} leaked in the message`);
      assert.ok(!err.details.stderrTail.includes(secret), `${label} leaked in details.stderrTail`);
    }
    assert.match(err.details.stderrTail, /plain diagnostic line/);
    assert.match(err.details.stderrTail, /\[REDACTED\]/);
  });

  test("secrets in the stdout excerpt of a failed run (stderr empty) are masked too", async () => {
    const stdout = Object.values(secrets)
      .map(([line]) => line)
      .join("\n");
    const fake = fakeCli([
      ["stdoutBase64", b64(stdout)],
      ["exit", 2],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
    for (const [label, [, secret]] of Object.entries(secrets))
      assert.ok(!err.message.includes(secret), `${label} leaked in the stdout excerpt`);
  });

  test("a tail whose first line was cut mid-assignment does not leak that value", async () => {
    const value = "cut-secret-value-0123456789";
    const stderr = `OPENAI_API_KEY=${value}${"x".repeat(5000)}\nGITHUB_TOKEN=${value}\nend\n`;
    const fake = fakeCli([
      ["stderr", stderr],
      ["exit", 1],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
    assert.ok(!err.message.includes(value), err.details.stderrTail.slice(0, 200));
  });

  test("spill files: sessions own theirs, 60 concurrent cut answers all keep their files, a dead host's are swept", async () => {
    const fake = fakeCli([["stdout", "x\n".repeat(2500)]]);
    // All sixty run at once (not the machine's parallel limit): the subject is the spill files.
    const outcomes = await withEnv({ PI_CODEGRAPH_MAX_PARALLEL: "60" }, () =>
      Promise.all(Array.from({ length: 60 }, () => exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 }))),
    );
    const paths = outcomes.map((o) => expectResult(o).details.fullOutputPath);
    assert.equal(new Set(paths).size, 60);
    for (const p of paths) assert.ok(fs.existsSync(p), `${p} still exists`);
    // One "session" releasing its own files leaves the others'.
    assert.equal(releaseFullOutputs(paths.slice(0, 30)), 30);
    assert.ok(paths.slice(0, 30).every((p) => !fs.existsSync(p)));
    assert.ok(paths.slice(30).every((p) => fs.existsSync(p)));
    assert.equal(releaseFullOutputs(paths.slice(30)), 30);
    for (const p of paths) {
      const dir = path.dirname(p);
      assert.ok(!dir.startsWith(suite.ws), "outside the workspace");
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700, "a private directory");
    }

    // A host killed by SIGTERM leaves its file; the next process's first spill sweeps it.
    const host = `${callee}("q", ${JSON.stringify(suite.ws)}).then((r) => {
      process.stdout.write(r.details.fullOutputPath + "\\n"); setInterval(() => {}, 1000); });`;
    const r = await runNode(["-e", host], {
      env: { ...process.env, PI_CODEGRAPH_BIN: fake.file },
      onStdout: (out, child) => out.endsWith("\n") && child.kill("SIGTERM"),
    });
    const leftover = r.stdout.trim();
    assert.equal(r.signal, "SIGTERM");
    assert.ok(fs.existsSync(leftover), "SIGTERM runs no exit handlers: the file is left");
    const next = `${callee}("q", ${JSON.stringify(suite.ws)}).then((r) => process.stdout.write(r.details.fullOutputPath));`;
    const r2 = await runNode(["-e", next], { env: { ...process.env, PI_CODEGRAPH_BIN: fake.file } });
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(fs.existsSync(leftover), false, "swept by the next process");
    assert.equal(fs.existsSync(r2.stdout), false, "and that process removed its own at exit");
  });

  test("two Pi sessions in one process: one session's shutdown keeps the other's files", async () => {
    const fake = fakeCli([["stdout", "y\n".repeat(2500)]]);
    const open = async () => {
      const host = await hostWith(runner.module, "s");
      await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => host.startSession({ cwd: suite.ws }));
      const result = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () =>
        host.registry[0].execute("c", { request: "q" }, undefined, undefined, { cwd: suite.ws }),
      );
      return { host, file: result.details.fullOutputPath };
    };
    const a = await open();
    const b = await open();
    await a.host.shutdown({ cwd: suite.ws });
    assert.equal(fs.existsSync(a.file), false);
    assert.ok(fs.existsSync(b.file), "the other session's file is still there");
    await b.host.shutdown({ cwd: suite.ws });
    assert.equal(fs.existsSync(b.file), false);
  });

  test("a call still running at session_shutdown keeps its file until the process exits, even past a later session", async () => {
    const gate = path.join(tempDir(), "go");
    const fake = fakeCli([
      ["stdout", "w\n".repeat(2500)],
      ["waitFile", gate],
    ]);
    const host = await hostWith(runner.module, "s");
    await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => host.startSession({ cwd: suite.ws }));
    const running = withEnv({ PI_CODEGRAPH_BIN: fake.file }, () =>
      host.registry[0].execute("c", { request: "q" }, undefined, undefined, { cwd: suite.ws }),
    );
    await host.shutdown({ cwd: suite.ws }); // while the call runs
    fs.writeFileSync(gate, "");
    const result = await running;
    const file = result.details.fullOutputPath;
    assert.ok(file && fs.existsSync(file), "the late answer's file is there");
    await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => host.startSession({ cwd: suite.ws }));
    await host.shutdown({ cwd: suite.ws }); // a later session's shutdown
    assert.ok(fs.existsSync(file), "still there: only the process's exit removes it");
    releaseFullOutputs([file]);
  });

  test("a workspace holding TMPDIR (as /tmp would): the full output still lands outside it", async () => {
    const big = makeWorkspace();
    const innerTmp = path.join(big, "tmp");
    fs.mkdirSync(innerTmp);
    const fake = fakeCli([["stdout", "z\n".repeat(2500)]]);
    const r = expectResult(await exploreWith(fake.file, "q", big, null, {}, { TMPDIR: innerTmp }));
    assert.ok(r.details.fullOutputPath, r.text.slice(-300));
    assert.ok(!r.details.fullOutputPath.startsWith(big), r.details.fullOutputPath);
    releaseFullOutputs([r.details.fullOutputPath]);
  });
});
