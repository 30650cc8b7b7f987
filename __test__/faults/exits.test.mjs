// The CLI fails: every way it can end badly is a CODEGRAPH_* code with what it said kept.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, fakeCli, shellFake } from "../helpers/index.mjs";
import { assertNothingLeft } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

eachRunner("the CLI fails", ({ exploreWith }) => {
  test("exits non-zero with no output: CODEGRAPH_EXIT with the exit code", async () => {
    const fake = fakeCli([["exit", 7]]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
    assert.equal(err.details.exitCode, 7);
    assert.equal(err.details.signal, null);
    assert.equal(err.details.stderrTail, "");
    assert.match(err.message, /exited with code 7/);
    assert.match(err.message, /\nstderr: \(empty\)$/);
    assert.equal(err.details.executable, fake.file);
    await assertNothingLeft();
  });

  for (const [name, number] of [
    ["SIGSEGV", 11],
    ["SIGKILL", 9],
  ]) {
    test(`dies by ${name}: CODEGRAPH_EXIT with details.signal and the signal named`, async () => {
      // What it said before dying must survive the crash.
      const fake = shellFake(
        `ulimit -c 0\necho "last words before the crash" >&2\nkill -${name.slice(3)} $$`,
        "a crash staged with core dumps off (ulimit -c 0), which a Node fake cannot set",
      );
      const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
      assert.equal(err.details.signal, number);
      assert.equal(err.details.exitCode, null);
      assert.equal(err.details.stderrTail, "last words before the crash\n");
      assert.match(err.message, /\nstderr \(last 4 KB\):\nlast words before the crash$/);
      // The summary line (the one the transcript shows) names the signal, not only its number.
      const summary = err.message.split("\n")[0];
      assert.match(summary, new RegExp(`\\b${name}\\b`), `the summary names ${name}: ${summary}`);
      await assertNothingLeft();
    });
  }

  test("a CLI that cannot open its index read-write: CODEGRAPH_INDEX_READONLY with the remedy", async () => {
    const fake = fakeCli([
      ["stderr", "✗ Explore failed: attempt to write a readonly database\n"],
      ["exit", 1],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_INDEX_READONLY");
    assert.match(err.remediation, /writable/);
    assert.match(err.remediation, /never writes the index/);
  });
  for (const [label, steps, end] of [
    [
      "one 1 MB line",
      [
        ["stderrFill", [1024 * 1024, "x"]],
        ["stderr", " the end of it\n"],
      ],
      "x the end of it",
    ],
    [
      "a 5 KB line ending in CRLF and blank lines",
      [["stderr", `first line\n${"w ".repeat(2500)}last\r\n\n \n`]],
      "w last",
    ],
    [
      "one line with no newline at all",
      [
        ["stderrFill", [9000, "y"]],
        ["stderr", "Z"],
      ],
      "yZ",
    ],
  ]) {
    test(`stderr ending in ${label} longer than the 4 KB tail: its end is kept, marked as cut`, async () => {
      const fake = fakeCli([...steps, ["exit", 3]]);
      const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
      const tail = err.details.stderrTail;
      assert.ok(tail.startsWith("[cut]…"), JSON.stringify(tail.slice(0, 40)));
      assert.ok(tail.trimEnd().endsWith(end), JSON.stringify(tail.slice(-40)));
      assert.ok(Buffer.byteLength(tail) <= 4096 && Buffer.byteLength(tail) > 4000, `${Buffer.byteLength(tail)} bytes`);
      assert.doesNotMatch(err.message, /\(empty\)/);
      assert.ok(err.message.includes(`\nstderr (last 4 KB):\n[cut]…`), err.message.slice(0, 400));
      await assertNothingLeft();
    });
  }
});
