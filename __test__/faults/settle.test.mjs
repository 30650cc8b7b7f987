// Every path settles with a code: odd arguments, throwing getters and Proxies, failing
// listeners, and the tool's execute with its arguments missing or broken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertStableError, expectError, expectResult, fakeCli, makeWorkspace, withEnv } from "../helpers/index.mjs";
import { hostWith } from "../helpers/pi-host.mjs";
import { runNode } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const fakeOk = () => fakeCli([["stdout", "fine\n"]]);
/** `n` lines "drip 1" … "drip n", 120 ms apart: output that arrives over time. */
const drip = (n) =>
  fakeCli(
    Array.from({ length: n }, (_, i) => [
      ["stdout", `drip ${i + 1}\n`],
      ["sleep", 120],
    ]).flat(),
  );

// Many calls and child hosts per test: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "every path settles with a code: odd arguments and failing listeners",
  ({ explore, callee }, runner) => {
    /** Calls explore and asserts it did not throw synchronously; returns the outcome. */
    async function settle(bin, ...args) {
      let promise;
      await withEnv({ PI_CODEGRAPH_BIN: bin }, async () => {
        assert.doesNotThrow(() => {
          promise = explore(...args);
        }, "explore() never throws synchronously");
      });
      return withEnv({ PI_CODEGRAPH_BIN: bin }, () =>
        promise.then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
      );
    }

    test("options and signals that throw, Proxies, throwing add/removeEventListener: rejections with codes", async () => {
      const fake = fakeOk();
      const thrower = () => {
        throw new Error("boom from a getter");
      };
      const cases = {
        "options.timeoutMs getter throws": [
          {
            get timeoutMs() {
              return thrower();
            },
          },
          undefined,
        ],
        "options is a throwing Proxy": [new Proxy({}, { get: thrower, has: thrower, ownKeys: thrower }), undefined],
        "options.onProgress getter throws a string": [
          {
            get onProgress() {
              throw "a string";
            },
          },
          undefined,
        ],
        "signal.aborted getter throws": [
          undefined,
          {
            get aborted() {
              return thrower();
            },
            addEventListener() {},
          },
        ],
        "signal is a throwing Proxy": [undefined, new Proxy({}, { get: thrower })],
        "signal.addEventListener throws": [undefined, { aborted: false, addEventListener: thrower }],
        "signal.addEventListener is not a function": [undefined, { aborted: false, addEventListener: 42 }],
      };
      for (const [label, [options, signal]] of Object.entries(cases)) {
        const outcome = await settle(fake.file, "q", suite.ws, signal, options);
        assert.ok(outcome.error, `${label}: rejects`);
        assertStableError(outcome.error, "CODEGRAPH_INVALID_OPTIONS");
      }
    });

    test("a signal whose removeEventListener throws: the call still settles, with its answer", async () => {
      const fake = fakeOk();
      const signal = {
        aborted: false,
        addEventListener() {},
        removeEventListener: () => {
          throw new Error("remove failed");
        },
      };
      const outcome = await settle(fake.file, "q", suite.ws, signal);
      assert.equal(expectResult(outcome).text, "fine\n");
      // And again for a failed call.
      const bad = await settle(fake.file, "q", makeWorkspace({ index: false }), signal);
      expectError(bad, "CODEGRAPH_NO_INDEX");
    });

    test("an onProgress that fails in any way never takes the host down; the call settles", async () => {
      const fake = drip(6);
      const listeners = {
        "throws an Error": "() => { throw new Error('listener bug'); }",
        "throws a string": "() => { throw 'listener bug'; }",
        "throws a Symbol": "() => { throw Symbol('bug'); }",
        "returns a rejected promise": "async () => { throw new Error('async listener bug'); }",
        "returns a thenable whose then throws": "() => ({ then() { throw new Error('then bug'); } })",
      };
      const script = `const explore = ${callee};
const listeners = { ${Object.entries(listeners)
        .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
        .join(", ")} };
(async () => {
const out = {};
for (const [name, fn] of Object.entries(listeners)) {
  let calls = 0;
  const r = await explore("q", ${JSON.stringify(suite.ws)}, null, { onProgress: (p) => { calls++; return fn(p); } });
  out[name] = { lines: r.text.split("\\n").length - 1, calls };
}
process.stdout.write(JSON.stringify(out));
})();`;
      const r = await runNode(["-e", script], {
        env: { ...process.env, PI_CODEGRAPH_BIN: fake.file },
        timeoutMs: 30000,
      });
      assert.equal(r.code, 0, `the host survived (stderr: ${r.stderr})`);
      const out = JSON.parse(r.stdout);
      for (const name of Object.keys(listeners)) {
        assert.equal(out[name].lines, 6, `${name}: the whole answer`);
        assert.ok(out[name].calls >= 1, `${name}: the listener was called`);
      }
    });

    test("the tool's execute with params, ctx or onUpdate missing or broken: coded rejections, no TypeError", async () => {
      const fake = fakeOk();
      const host = await hostWith(runner.module, "edges");
      await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => host.startSession({ cwd: suite.ws }));
      const [tool] = host.registry;
      const calls = [
        [undefined, undefined, "CODEGRAPH_INVALID_REQUEST"],
        [{}, { cwd: suite.ws }, "CODEGRAPH_INVALID_REQUEST"],
        [{ request: "q" }, undefined, "CODEGRAPH_WORKSPACE"],
        [{ request: "q" }, {}, "CODEGRAPH_WORKSPACE"],
        [null, null, "CODEGRAPH_INVALID_REQUEST"],
      ];
      for (const [params, ctx, code] of calls) {
        await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () =>
          assert.rejects(tool.execute("c", params, undefined, undefined, ctx), (err) => {
            assert.equal(err.code, code, err.message);
            assert.ok(err.message.startsWith(`${code}:`), err.message);
            return true;
          }),
        );
      }
      const dripping = drip(4);
      const result = await withEnv({ PI_CODEGRAPH_BIN: dripping.file }, () =>
        tool.execute(
          "c",
          { request: "q" },
          undefined,
          () => {
            throw new Error("onUpdate bug");
          },
          { cwd: suite.ws },
        ),
      );
      assert.equal(result.content[0].text, "drip 1\ndrip 2\ndrip 3\ndrip 4\n");
    });
  },
  { tools: ["explore"] },
);
