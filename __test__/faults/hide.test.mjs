// Never hides text: terminal escapes strip at most themselves, invalid bytes become U+FFFD, and
// the full-output file and the tool's rendering are cleaned the same way.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { expectResult, fakeCli } from "../helpers/index.mjs";
import { hostWith } from "../helpers/pi-host.mjs";
import { assertNothingLeft } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const ESC = "\x1b";
/** Control characters other than tab and newline (what a terminal would act on). */
const hasControl = (text) =>
  [...text].some((c) => {
    const n = c.codePointAt(0);
    return (n < 0x20 && n !== 9 && n !== 10) || (n >= 0x7f && n <= 0x9f);
  });
/** A fake that prints `bytes` (a Buffer or string) on stdout and exits 0. */
const printing = (bytes) => fakeCli([["stdoutBase64", Buffer.from(bytes).toString("base64")]]);

eachRunner("never hides text", ({ exploreWith, releaseFullOutputs }, runner) => {
  test("prints invalid UTF-8 and NUL bytes: a normal result with U+FFFD, NUL dropped, the rest intact", async () => {
    const raw = Buffer.concat([
      Buffer.from("before"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(" middle\0NUL after"),
      Buffer.from([0xc3, 0x28]),
      Buffer.from("end\n\u2713 last line\n"),
    ]);
    const result = expectResult(await exploreWith(printing(raw).file, "q", suite.ws));
    assert.equal(result.text, "before\uFFFD\uFFFD middleNUL after\uFFFD(end\n\u2713 last line\n");
    assert.ok(!result.text.includes("\0"));
    assert.equal(result.details.exitCode, 0);
    // Totals count the cleaned text, as the kept counts do: all of it was kept.
    assert.equal(result.details.totalBytes, Buffer.byteLength(result.text));
    assert.equal(result.details.totalBytes, result.details.keptBytes);
    assert.equal(result.details.truncated, false);
    await assertNothingLeft();
  });

  const introducers = { OSC: "]", DCS: "P", APC: "_", PM: "^", SOS: "X" };
  for (const [name, intro] of Object.entries(introducers)) {
    test(`an unterminated ${name} (ESC ${intro}) strips at most itself; the lines after it stay`, async () => {
      const raw = `line1\n${ESC}${intro}0;title with no end\nline2 after it\nline3\n`;
      const r = expectResult(await exploreWith(printing(raw).file, "q", suite.ws));
      assert.match(r.text, /^line1\n/);
      assert.match(r.text, /\nline2 after it\nline3\n$/);
      assert.ok(!r.text.includes("title with no end") && !hasControl(r.text), JSON.stringify(r.text));
      assert.equal(r.details.truncated, false);
    });
  }

  test("C1 string introducers, a payload over 4 KB, BEL/ST terminators: nothing after them is lost", async () => {
    const raw = [
      "a\u009d0;c1 osc\nafter c1\n",
      `b${ESC}]${"p".repeat(10000)}\nafter a long payload\n`,
      `c${ESC}]0;title\x07 after bel\n`,
      `d${ESC}P q ${ESC}\\ after st\n`,
      `e${ESC}]52;c;ZXZpbA==\x07 after clipboard\n`,
    ].join("");
    const r = expectResult(await exploreWith(printing(raw).file, "q", suite.ws));
    for (const kept of ["after c1", "after a long payload", " after bel", " after st", " after clipboard"])
      assert.ok(r.text.includes(kept), `keeps ${JSON.stringify(kept)}: ${JSON.stringify(r.text.slice(0, 200))}`);
    assert.ok(!hasControl(r.text) && !r.text.includes("ZXZpbA"), JSON.stringify(r.text.slice(0, 300)));
  });

  test("a lone ESC keeps the next character; CR and CRLF become LF; no printable character is lost", async () => {
    const raw = `price ${ESC}5 dollars\na\rb\r\nc${ESC}\nd${ESC}[12\ne\r`;
    const r = expectResult(await exploreWith(printing(raw).file, "q", suite.ws));
    assert.equal(r.text, "price 5 dollars\na\nb\nc\nd\ne\n");
  });

  test("the full-output file is cleaned like the text", async () => {
    const line = `${ESC}[31mred${ESC}[0m ${ESC}]0;title${ESC}\\ plain\r\n`;
    const r = expectResult(await exploreWith(printing(line.repeat(3000)).file, "q", suite.ws));
    assert.equal(r.details.truncated, true);
    const full = fs.readFileSync(r.details.fullOutputPath, "utf8");
    assert.equal(full, "red  plain\n".repeat(3000));
    releaseFullOutputs([r.details.fullOutputPath]);
  });

  test("sequences split across reads (byte by byte) are cleaned the same, in the text and the full-output file", async () => {
    const tail = Buffer.from(`x${ESC}]0;t${ESC}[1my\r\ncaf\u00e9\r\n${ESC}(Bz\nprice ${ESC}5 dollars\n`);
    const bytewise = [...tail].flatMap((b) => [
      ["stdoutBase64", Buffer.from([b]).toString("base64")],
      ["sleep", 1],
    ]);
    const expected = "xy\ncaf\u00e9\nz\nprice 5 dollars\n";
    const small = expectResult(await exploreWith(fakeCli(bytewise).file, "q", suite.ws));
    assert.equal(small.text, expected);
    // Past the caps the stream goes to the full-output file chunk by chunk, cleaned as it comes.
    const big = `${ESC}[31mred${ESC}[0m plain\r\n`.repeat(6000);
    const fake = fakeCli([["stdout", big], ...bytewise]);
    const r = expectResult(await exploreWith(fake.file, "q", suite.ws));
    assert.equal(r.details.truncated, true);
    assert.equal(fs.readFileSync(r.details.fullOutputPath, "utf8"), `${"red plain\n".repeat(6000)}${expected}`);
    releaseFullOutputs([r.details.fullOutputPath]);
  });

  test("renderCall shows the model's request cleaned: no title, clipboard or clear-screen reaches the terminal", async () => {
    const host = await hostWith(runner.module, "render");
    await host.startSession({ cwd: suite.ws });
    const [tool] = host.registry;
    const theme = { fg: (_c, t) => t, bold: (t) => t };
    const request = `what calls ${ESC}]0;pwned\x07${ESC}]52;c;ZXZpbA==\x07${ESC}[2J${ESC}c\u009b2J main\x00\x07\x08`;
    const rendered = tool.renderCall({ request }, theme, {}).render(200).join("\n");
    assert.ok(!hasControl(rendered), JSON.stringify(rendered));
    assert.match(rendered, /what calls .*main/);
    const result = { content: [{ type: "text", text: `${ESC}]0;pwned\x07answer\n` }], details: {} };
    const shown = tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}).render(200).join("\n");
    assert.ok(!hasControl(shown), JSON.stringify(shown));
    // Characters that reorder what is shown ("Trojan Source") are shown, not obeyed.
    const bidi = "\u202e\u2066\u2069\u200f\u061c\u2028";
    const trojan = `access = "user\u202e \u2066// admin only\u2069 \u2066"`;
    const call = tool
      .renderCall({ request: `why ${bidi} here` }, theme, {})
      .render(200)
      .join("\n");
    const listing = { content: [{ type: "text", text: `${trojan}\n` }], details: {} };
    const body = tool.renderResult(listing, { expanded: true, isPartial: false }, theme, {}).render(200).join("\n");
    for (const text of [call, body]) {
      assert.ok(![...bidi].some((c) => text.includes(c)), JSON.stringify(text));
    }
    // (The call row folds all whitespace, U+2028 included, into single spaces.)
    assert.match(call, /why \\u\{202e\}\\u\{2066\}\\u\{2069\}\\u\{200f\}\\u\{61c\} here/);
    assert.match(body, /user\\u\{202e\} \\u\{2066\}\/\/ admin only\\u\{2069\}/);
  });
});
