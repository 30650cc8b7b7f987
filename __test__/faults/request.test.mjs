// The request: whatever the model sends is refused with a code or reaches the CLI as exactly
// one verbatim argv element after `--`; no shell ever sees it.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { BLANK_TABLE } from "../helpers/blank.mjs";
import { assertStableError, expectError, expectResult, fakeCli, tempDir } from "../helpers/index.mjs";
import { assertNothingLeft } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

// Through explore: the runner passes a description's positional verbatim after `--`, whatever
// the call. The focused tools' text reaches their description unchanged, and their own limit and
// blank rule hold, in tools-seam.test.mjs.
eachRunner(
  "the request",
  ({ exploreWith }) => {
    let recorder;
    let log;
    const limit = 10000;
    before(() => {
      // Records the exact argv bytes it received (from /proc/self/cmdline) and answers.
      log = path.join(tempDir("pi-codegraph-faults-log-"), "calls.log");
      recorder = fakeCli([
        ["record", log],
        ["stdout", "recorded\n"],
      ]);
    });

    const calls = () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];

    /** Runs one request and returns the argv bytes the CLI saw after `explore --`. */
    async function passed(request) {
      const before = calls().length;
      expectResult(await exploreWith(recorder.file, request, suite.ws));
      const all = calls();
      assert.equal(all.length, before + 1, "the CLI ran once");
      const parts = Buffer.from(all.at(-1).cmdline, "base64").toString("latin1").split("\0");
      // cmdline: node, launcher, explore, --, request, "" (trailing NUL)
      const after = parts.slice(2, -1).map((p) => Buffer.from(p, "latin1"));
      return { argv: all.at(-1).argv, raw: after };
    }

    function assertVerbatim(seen, request) {
      assert.equal(seen.raw.length, 3, `exactly three arguments: ${seen.argv.map((a) => JSON.stringify(a)).join(" ")}`);
      assert.equal(seen.raw[0].toString(), "explore");
      assert.equal(seen.raw[1].toString(), "--");
      assert.ok(seen.raw[2].equals(Buffer.from(request, "utf8")), `byte-identical: ${JSON.stringify(request)}`);
      assert.deepEqual(seen.argv, ["explore", "--", request]);
    }

    for (const [label, request] of [
      ["empty", ""],
      ["whitespace", " \t\n\r\u00a0\u2003 "],
      ["NUL alone", "\0"],
      ["NUL inside", "what calls\0main"],
      ["1 MB", "x".repeat(1024 * 1024)],
      ["1 MB of multibyte", "é".repeat(512 * 1024)],
    ]) {
      test(`${label}: CODEGRAPH_INVALID_REQUEST, bounded message, the CLI never runs`, async () => {
        const before = calls().length;
        const err = expectError(await exploreWith(recorder.file, request, suite.ws), "CODEGRAPH_INVALID_REQUEST");
        assert.ok(Buffer.byteLength(err.message) < 1024, `message is ${Buffer.byteLength(err.message)} bytes`);
        assert.equal(calls().length, before, "the CLI never ran");
        await assertNothingLeft();
      });
    }

    // One rule for a blank request (helpers/blank.mjs).
    for (const [label, request] of Object.entries(BLANK_TABLE)) {
      test(`blank (${label}): CODEGRAPH_INVALID_REQUEST, the CLI never runs`, async () => {
        const before = calls().length;
        const err = expectError(await exploreWith(recorder.file, request, suite.ws), "CODEGRAPH_INVALID_REQUEST");
        assert.match(err.message, /empty or only whitespace and invisible characters/);
        assert.equal(calls().length, before, "the CLI never ran");
      });
    }

    test("one visible character among the invisible ones is a request, passed verbatim", async () => {
      for (const request of ["\ufeffa", "\u0085?\u0085", "\u200b\u00e9\u200b", "\u202e1"]) {
        assertVerbatim(await passed(request), request);
      }
    });

    // explore's limit is 10,000 characters (a focused tool's text argument's, 300: tools-seam.test.mjs).
    test(`exactly ${limit.toLocaleString("en")} multibyte characters still pass, verbatim`, async () => {
      const request = "é".repeat(limit);
      assertVerbatim(await passed(request), request);
    });

    test("every shell metacharacter, alone and together, is one verbatim argv element", async () => {
      const sentinel = path.join(tempDir("pi-codegraph-faults-sentinel-"), "pwned");
      const parts = [
        `\`touch ${sentinel}\``,
        `$(touch ${sentinel})`,
        `; touch ${sentinel};`,
        `&& touch ${sentinel} || touch ${sentinel} &`,
        `| tee ${sentinel}`,
        `> ${sentinel} >> ${sentinel} 2>&1 < /etc/passwd <<EOF`,
        "${IFS}${HOME}$HOME$0$1$$$?$!$@$*",
        "* ? [a-z] {a,b} ~ ~root !! !$ # % ^ = + , .",
        `'single' "double" \\backslash \\' \\"`,
        "(sub) {group;} $((1+1)) <(echo) >(cat)",
        "newline\nand\ttab and\rreturn and\u000bvtab",
      ];
      assertVerbatim(await passed(parts.join(" ")), parts.join(" "));
      for (const c of "`$;&|<>(){}[]*?~!#'\"\\\n\t\r %^=+,:@") {
        const request = `a${c}b`;
        assertVerbatim(await passed(request), request);
      }
      assert.equal(fs.existsSync(sentinel), false, "no shell ever ran");
      await assertNothingLeft();
    });

    for (const [label, request] of [
      ["RTL override", "where is \u202Eexe.txt\u202C defined"],
      ["Arabic and Hebrew", "ما الذي يستدعي main؟ מי קורא ל-checkout?"],
      ["combining marks", "e\u0301\u0302\u0303 Z\u0324\u0354\u0367\u0311a\u0308\u0356"],
      ["NFD kept NFD (no normalisation)", "cafe\u0301 vs caf\u00e9"],
      ["ZWJ emoji, BOM, zero-width", "\uFEFF👩‍👩‍👧‍👦 zero\u200Bwidth \u2066isolate\u2069"],
    ]) {
      test(`${label}: byte-identical argv element`, async () => {
        assertVerbatim(await passed(request), request);
      });
    }

    test("a lone UTF-16 surrogate: settles (rejected, or passed as well-formed UTF-8), never a crash", async (t) => {
      const outcome = await exploreWith(recorder.file, "a\uD800b", suite.ws);
      t.diagnostic(outcome.error ? `rejected: ${outcome.error.code}` : "passed to the CLI as U+FFFD");
      if (outcome.error) {
        assertStableError(outcome.error, "CODEGRAPH_INVALID_REQUEST");
      } else {
        const last = calls().at(-1);
        const raw = Buffer.from(last.cmdline, "base64").toString("latin1").split("\0")[4];
        assert.ok(Buffer.from(raw, "latin1").equals(Buffer.from("a\uFFFDb")), "well-formed UTF-8 with U+FFFD");
      }
    });

    for (const request of [
      "--version",
      "-h",
      "--help",
      "--",
      "-",
      "---x",
      "-p /etc",
      "--path=/etc --max-files 1",
      "-rf /",
    ]) {
      test(`leading dashes ${JSON.stringify(request)}: data after --, never an option`, async () => {
        assertVerbatim(await passed(request), request);
      });
    }
  },
  { tools: ["explore"] },
);
