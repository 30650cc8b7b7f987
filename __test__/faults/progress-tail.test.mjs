// Live progress of a long write: every progress report's `tail` is the end of all the output
// seen so far (past the caps, cleaned, within 1 KiB, never a cut character), a truncated answer
// carries that end as `details.outputTail`, and output that arrives inside the 250 ms interval is
// still reported once it has passed (a line followed by silence shows while the CLI works on).
// Each fake blocks on a go-file that the test creates only once the report it waits for arrived.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { expectResult, fakeCli, root, tempDir, withEnv } from "../helpers/index.mjs";
import { assertNothingLeft } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const { codegraphCommand } = createRequire(import.meta.url)(path.join(root, "lib", "contract", "commands.js"));
const suite = useFaultsSuite();
const TAIL_BYTES = 1024; // the documented bound (binding.d.ts Progress.tail)
const INTERVAL_MS = 250;
/** Control characters other than tab and newline (what a terminal would act on), CR included. */
const hasControl = (text) =>
  [...text].some((c) => {
    const n = c.codePointAt(0);
    return (n < 0x20 && n !== 9 && n !== 10) || (n >= 0x7f && n <= 0x9f);
  });
// `codegraph index -v` as the lead's /codegraph rebuild runs it: one line per file.
const indexCommand = codegraphCommand("index", { options: { verbose: true }, writesIndex: true, timeoutMs: 60000 });
const fileLine = (i, n) => `[${(i / 100).toFixed(1)}s]   ${i}/${n} (${Math.floor((i * 100) / n)}%) — src/file${i}.ts\n`;

/**
 * Runs `command` with the fake `bin` (which waits for `gate.go`), every progress report collected;
 * the first report for which `until(report)` holds creates the go-file and is `released`.
 * Resolves with `{ value | error, reports, released }` once the call has settled.
 */
async function runReleasing(run, bin, command, gate, until) {
  const reports = [];
  let released = null;
  const onProgress = (p) => {
    reports.push(p);
    if (released === null && until(p)) {
      released = p;
      fs.writeFileSync(gate.go, "");
    }
  };
  const outcome = await withEnv({ PI_CODEGRAPH_BIN: bin }, () =>
    run(command, suite.ws, null, { timeoutMs: 20000, onProgress }).then(
      (value) => ({ value }),
      (error) => ({ error }),
    ),
  );
  return { ...outcome, reports, released };
}

/** A go-file path and the fake's step that waits for it. */
function goFile() {
  const go = path.join(tempDir("pi-codegraph-go-"), "go");
  return { go, step: ["waitFile", go] };
}

eachRunner("progress tail and trailing report", ({ explore, exploreWith }, runner) => {
  const { run } = runner.module;

  test("5,000 lines, then the CLI waits: a report's tail ends with the latest line, far past the 2,000-line cap", async () => {
    const gate = goFile();
    const n = 5000;
    const lines = Array.from({ length: n }, (_, i) => fileLine(i + 1, n)).join("");
    const last = fileLine(n, n);
    const fake = fakeCli([
      ["stdout", "[0.0s] Phase: parsing\n"],
      ["stdout", lines],
      gate.step,
      ["stdout", "◆  Indexed 5000 files\n"],
    ]);
    const out = await runReleasing(run, fake.file, indexCommand, gate, (p) => p.tail.endsWith(last));
    const result = expectResult(out);
    const r = out.released;
    assert.ok(r, `a report showed the latest line (${out.reports.length} reports)`);
    assert.ok(!r.text.includes(last), "the kept text stopped at the caps");
    assert.ok(r.seenLines >= n, `seen ${r.seenLines} lines`);
    assert.ok(Buffer.byteLength(r.tail) <= TAIL_BYTES, `${Buffer.byteLength(r.tail)} bytes`);
    assert.ok(r.tail.startsWith("["), `from a whole line: ${r.tail.slice(0, 30)}`);
    assert.ok(lines.endsWith(r.tail), "a suffix of what the CLI printed");
    assert.ok(Buffer.byteLength(r.tail) > TAIL_BYTES - Buffer.byteLength(last), "as much as fits");
    // At most one report per interval, each after new output.
    for (let i = 1; i < out.reports.length; i++) {
      const [a, b] = [out.reports[i - 1], out.reports[i]];
      assert.ok(b.elapsedMs - a.elapsedMs >= INTERVAL_MS - 10, `reports ${b.elapsedMs - a.elapsedMs} ms apart`);
      assert.ok(b.seenBytes > a.seenBytes, "a report follows new output");
    }
    // The finished answer: cut, with the CLI's final words beside it.
    assert.equal(result.details.truncated, true);
    const outputTail = result.details.outputTail;
    assert.ok(outputTail.endsWith(`${last}◆  Indexed 5000 files\n`), outputTail.slice(-80));
    assert.ok(`${lines}◆  Indexed 5000 files\n`.endsWith(outputTail) && outputTail.startsWith("["));
    assert.ok(Buffer.byteLength(outputTail) <= TAIL_BYTES);
    assert.ok(!result.text.includes("Indexed 5000 files"), "the text does not reach the summary");
    runner.module.releaseFullOutputs();
    await assertNothingLeft();
  });

  test("the tail is cleaned as the text is, within 1 KiB, from a whole line, never a cut character", async () => {
    const gate = goFile();
    const euros = "€".repeat(40);
    const raw = Array.from({ length: 100 }, (_, i) => `\x1b[32m✓\x1b[0m file ${i} ${euros}\r\n`).join("");
    const end = "\x1b]0;indexing\x07done 50%\r100%";
    const fake = fakeCli([["stdout", raw + end], gate.step]);
    const cleaned = Array.from({ length: 100 }, (_, i) => `✓ file ${i} ${euros}\n`).join("");
    const out = await runReleasing(run, fake.file, indexCommand, gate, (p) => p.tail.endsWith("100%"));
    expectResult(out);
    const tail = out.released?.tail;
    assert.ok(tail, `a report showed the end (${out.reports.map((p) => JSON.stringify(p.tail.slice(-12))).join()})`);
    assert.ok(!hasControl(tail), `no escape, CR or control byte: ${JSON.stringify(tail.slice(-40))}`);
    assert.ok(tail.endsWith("\ndone 50%\n100%"), JSON.stringify(tail.slice(-40)));
    assert.ok(`${cleaned}done 50%\n100%`.endsWith(tail), "a suffix of the cleaned output");
    assert.ok(tail.startsWith("✓ file "), `from a whole line: ${tail.slice(0, 20)}`);
    assert.ok(Buffer.byteLength(tail) <= TAIL_BYTES);

    // One line of 3-byte characters, longer than the bound: its end, whole characters only.
    const one = goFile();
    const line = fakeCli([["stdout", "€".repeat(5000)], one.step]);
    const cut = await runReleasing(run, line.file, indexCommand, one, (p) => p.seenBytes >= 15000);
    expectResult(cut);
    assert.equal(cut.released.tail, "€".repeat(Math.floor(TAIL_BYTES / 3)));
    await assertNothingLeft();
  });

  test("outputTail: on a truncated answer, its final lines; absent on a whole one", async () => {
    const summary = "◆  Indexed 7 files\n●  43 nodes, 81 edges in 264ms\n└  Done\n";
    const long = fakeCli([["stdout", `${"x\n".repeat(3000)}\x1b[1m${summary}\x1b[0m`]]);
    const cut = expectResult(await exploreWith(long.file, "q", suite.ws));
    assert.equal(cut.details.truncated, true);
    const outputTail = cut.details.outputTail;
    assert.ok(outputTail.endsWith(summary), JSON.stringify(outputTail.slice(-80)));
    assert.ok(`${"x\n".repeat(3000)}${summary}`.endsWith(outputTail), "cleaned: the escapes are gone");
    assert.ok(outputTail.startsWith("x\n") && Buffer.byteLength(outputTail) >= TAIL_BYTES - 2);
    assert.ok(Buffer.byteLength(outputTail) <= TAIL_BYTES);
    assert.ok(!cut.text.includes("Done"));
    const whole = fakeCli([["stdout", summary]]);
    const fine = expectResult(await exploreWith(whole.file, "q", suite.ws));
    assert.equal(fine.details.truncated, false);
    assert.equal(fine.text, summary);
    assert.ok(!("outputTail" in fine.details), "a whole answer already ends with it");
    runner.module.releaseFullOutputs();
  });

  test("one line, then silence: a report shows it while the CLI still works (the trailing report)", async () => {
    const gate = goFile();
    const fake = fakeCli([["stdout", "Scanning files...\n"], gate.step, ["stdout", "●  Already up to date\n"]]);
    const sync = codegraphCommand("sync", { writesIndex: true, timeoutMs: 60000 });
    const out = await runReleasing(run, fake.file, sync, gate, (p) => p.tail === "Scanning files...\n");
    const result = expectResult(out);
    assert.ok(out.released, "reported before the CLI was released");
    assert.equal(out.released.text, "Scanning files...\n");
    assert.ok(out.released.elapsedMs >= INTERVAL_MS - 10, `not before the interval: ${out.released.elapsedMs} ms`);
    assert.equal(out.reports[0], out.released, "one report for the line, none before it");
    assert.equal(result.text, "Scanning files...\n●  Already up to date\n");
    await assertNothingLeft();
  });

  test("a CLI that prints and ends inside the interval: no report after its run", async () => {
    const fake = fakeCli([["stdout", "quick answer\n"]]);
    const reports = [];
    const result = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () =>
      explore("q", suite.ws, null, { onProgress: (p) => reports.push(p) }),
    );
    // Proving an absence needs time: longer than the interval, for a trailing report the run
    // failed to drop. (It cannot make a correct runner fail.)
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
    for (const p of reports) {
      // (A report made during the run may reach JS just after the answer; none is made later.)
      assert.ok(
        p.elapsedMs <= result.details.runMs,
        `a report at ${p.elapsedMs} ms of a ${result.details.runMs} ms run`,
      );
    }
    assert.ok(reports.length <= 1, `${reports.length} reports of one line`);
    assert.equal(result.text, "quick answer\n");
  });
});
