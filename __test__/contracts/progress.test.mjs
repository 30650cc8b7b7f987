// Partial output while the CLI runs: explore()'s onProgress and the tool's onUpdate, for each
// runner.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { useFakeCli, withEnv } from "../helpers/index.mjs";
import { loadTool } from "../helpers/pi-host.mjs";
import { ALL_TOOLS, toolCall } from "../helpers/tools.mjs";

const require = createRequire(import.meta.url);
const fake = useFakeCli();

const drip = { FAKE_CG_MODE: "drip", FAKE_CG_COUNT: "8", FAKE_CG_INTERVAL: "100" };
const dripText = `${Array.from({ length: 8 }, (_, i) => `drip ${i + 1}`).join("\n")}\n`;

// Against explore() and each focused tool (helpers/tools.mjs), and their registered tools.
for (const [impl, call] of implementations.flatMap((i) => ALL_TOOLS.map((glue) => [i, toolCall(glue)]))) {
  describe(`${impl.name}, ${call.label}`, () => {
    const pkg = impl.module;
    const explore = call.adapt(pkg);
    // The runner's own cap, not a copy of it; a focused tool's own (lib/contract/commands.js) is smaller.
    const runner = impl.runner === "node" ? require(impl.entry) : require("../../binding.js");
    const maxBytes = call.caps?.maxBytes ?? runner.MAX_OUTPUT_BYTES;

    test("progress reports arrive while the CLI prints, bounded, each a prefix of the answer", async () => {
      const updates = [];
      const result = await withEnv(drip, () => explore("q", fake.ws, null, { onProgress: (p) => updates.push(p) }));
      assert.ok(updates.length >= 1, "at least one progress report");
      for (const u of updates) {
        assert.ok(result.text.startsWith(u.text), "progress text is a prefix of the final text");
        assert.ok(Buffer.byteLength(u.text) <= maxBytes);
        assert.equal(typeof u.elapsedMs, "number");
      }
      assert.equal(result.text, dripText);
    });

    test("the tool streams partial results through Pi's onUpdate", async () => {
      const name = call.focused ? call.id : "codegraph_explore";
      const tool = await withEnv({ PI_CODEGRAPH_TOOLS: "all" }, () => loadTool(pkg, { cwd: fake.ws }, name));
      const params = call.focused ? call.params("q") : { request: "q" };
      const updates = [];
      const result = await withEnv(drip, () =>
        tool.execute("c", params, undefined, (u) => updates.push(u), { cwd: fake.ws }),
      );
      assert.ok(updates.length >= 1);
      for (const u of updates) {
        assert.equal(u.details.partial, true);
        assert.ok(dripText.startsWith(u.content[0].text));
      }
      assert.equal(result.content[0].text, dripText);
    });
  });
}
