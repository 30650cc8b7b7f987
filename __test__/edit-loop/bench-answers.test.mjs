// The answers bench's own rules (bench/answers/README.md), tested where they live: a plan that uses
// a name from outside the question and its earlier answers is refused; the product's places are
// judged against the source (a docstring, a line past the end, a definition that does not contain
// the line are false); and the questions themselves hold: fair plans, truth lines where their
// symbols are defined, edits that apply exactly once (on the cached corpora, when present).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { checkClaims, checkTruth } from "../../bench/lib/claims.mjs";
import { CORPORA } from "../../bench/lib/corpora.mjs";
import { checkPlans, planFaults, unmetSources } from "../../bench/lib/plans.mjs";
import { root } from "../helpers/index.mjs";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-bench-answers-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const step = (args, sources, tool = "codegraph_relations") => ({ tool, args, sources });
const question = (plan) => ({
  id: "q",
  question: "How does Sleep::poll in src/time/sleep.rs reach reset?",
  plans: { focused: plan },
});

describe("fair plans", () => {
  test("names the question gives pass, whole or as the parts of a qualified name", () => {
    const plan = [
      step({ relation: "path", from: "Sleep::poll", to: "reset" }, { "Sleep::poll": "question", reset: "question" }),
    ];
    assert.deepEqual(planFaults(question(plan)), []);
    const parts = [
      step(
        { relation: "callers", symbol: "poll", file: "src/time/sleep.rs" },
        { poll: "question", "src/time/sleep.rs": "question" },
      ),
    ];
    assert.deepEqual(planFaults(question(parts)), []);
  });

  test("a name from outside, unsourced or sourced wrongly, is refused loudly", () => {
    const unsourced = [step({ relation: "callers", symbol: "poll_elapsed" }, {})];
    assert.match(planFaults(question(unsourced))[0], /uses "poll_elapsed" and does not say/u);
    const wrong = [step({ relation: "callers", symbol: "poll_elapsed" }, { poll_elapsed: "question" })];
    assert.match(planFaults(question(wrong))[0], /the question does not give "poll_elapsed"/u);
    const later = [step({ relation: "callers", symbol: "poll_elapsed" }, { poll_elapsed: "answer:0" })];
    assert.match(planFaults(question(later))[0], /not an earlier answer/u);
    const request = [
      step(
        { request: "How does Sleep::poll reach TimerEntry::reset in src/runtime/time/entry.rs?" },
        { "Sleep::poll": "question" },
        "codegraph_explore",
      ),
    ];
    assert.equal(planFaults(question(request)).length, 2);
    assert.throws(() => checkPlans("x.json", [question(unsourced)]), /names from outside/u);
  });

  test("a name taken from an earlier answer must be in that answer", () => {
    const s = step({ relation: "callers", symbol: "poll_elapsed" }, { poll_elapsed: "answer:0" });
    assert.deepEqual(unmetSources(s, ["Sleep::poll calls poll_elapsed (src/time/sleep.rs:399)"]), []);
    assert.deepEqual(unmetSources(s, ["nothing here; poll_elapsed_x is longer"]), ["poll_elapsed (not in answer 0)"]);
  });
});

describe("the product's places against the source", () => {
  fs.mkdirSync(path.join(tmp, "src"), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, "src", "a.rs"),
    'fn outer() {\n    inner();\n}\n\n/// inner() is documented here\nfn other() {\n    let s = "inner()";\n    inner();\n}\n',
  );
  fs.writeFileSync(
    path.join(tmp, "src", "m.py"),
    'def f():\n    """g() in a docstring"""\n    g()\n\n\ndef h():\n    return 1\n',
  );
  const note = (name, places) =>
    `Calls of "${name}" in the source that CodeGraph's answer does not list (a text search for the name, which namesakes share; read them to be sure): ${places}.`;
  const judged = (text, s = { tool: "codegraph_relations", args: { relation: "callers" } }) =>
    checkClaims(text, s, tmp);

  test("true places pass", () => {
    const r = judged(note("inner", "src/a.rs:2 in outer, src/a.rs:8 in other"));
    assert.equal(r.checked, 2);
    assert.deepEqual(judged(note("g", "src/m.py:3 in f")).false, []);
    assert.deepEqual(r.false, []);
  });

  test("a comment, a string, a docstring, a line past the end, the wrong container are false", () => {
    const r = judged(note("inner", "src/a.rs:5 in other, src/a.rs:7 in other, src/a.rs:2 in other, src/a.rs:10"));
    assert.equal(r.false.length, 4, JSON.stringify(r.false));
    assert.match(r.false.at(-1).why, /has 9 lines, not 10/u);
    const py = judged(note("g", "src/m.py:2 in f, src/m.py:3 in h"));
    assert.equal(py.false.length, 2, JSON.stringify(py.false));
    assert.equal(judged(note("g", "src/m.py:3 in $name")).false.length, 1);
  });

  test("a blind-spot line's definitions", () => {
    const line = (where) => `Not in CodeGraph's index: "inner" is defined at ${where}; read it there.`;
    assert.deepEqual(
      judged(line("src/a.rs:1 (a macro block), src/a.rs:2")).false.map((f) => f.said),
      ['"inner" is defined at src/a.rs:1', '"inner" is defined at src/a.rs:2'],
    );
    const ok = judged(
      `CodeGraph's answer does not mention "other"; the source defines it at src/a.rs:6; read it there.`,
    );
    assert.deepEqual([ok.checked, ok.false], [1, []]);
  });

  test("a text match says only that the text is there", () => {
    assert.deepEqual(judged(note("inner", "src/a.rs:5 `/// inner() is documented here`")).false, []);
  });

  test("path hops: definitions at their lines, calls inside the hop before", () => {
    const s = { tool: "codegraph_relations", args: { relation: "path" } };
    const ok = judged("outer (src/a.rs:1) → calls inner at src/a.rs:2 → inner (src/a.rs:2)", s);
    assert.equal(ok.false.length, 1, "inner is not defined at line 2");
    const wrong = judged("other (src/a.rs:6) → calls inner at src/a.rs:2", s);
    assert.match(wrong.false[0].why, /not inside other/u);
    assert.deepEqual(judged("h (src/m.py:6) → calls f at src/m.py:7", s).false.length, 1);
  });
});

describe("a changes answer's places", () => {
  fs.mkdirSync(path.join(tmp, "c"), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, "c", "b.rs"),
    "fn outer() {\n    inner();\n}\n/// inner() doc\nfn other() {\n    inner();\n}\nfn inner() {\n    let x = 1;\n}\n",
  );
  test("changed symbols, dependents and their uses, text-search lines", () => {
    const answer = [
      "Changes: the working tree against HEAD: 1 file, 1 changed symbol, 2 dependents, 0 test files.",
      "c/b.rs (modified, 1 changed symbol)",
      "- inner (function, c/b.rs:8-10), changed line 9",
      "  dependents: 2 in 1 file (impact, depth 2; 2 use it directly)",
      "    outer (function, c/b.rs:1; uses it at c/b.rs:2); other (function, c/b.rs:5; uses it at c/b.rs:2)",
      '  text search for "inner" (text matches in the source, not the graph): 2 lines',
      "    c/b.rs:4 `/// inner() doc`; c/b.rs:3 `}`",
    ].join("\n");
    const r = checkClaims(answer, { tool: "codegraph_changes", args: {} }, tmp);
    assert.equal(r.checked, 7, JSON.stringify(r));
    assert.deepEqual(
      r.false.map((f) => f.said),
      ["other uses inner at c/b.rs:2", "c/b.rs:3 `"],
    );
  });
});

describe("the questions", () => {
  const cache = path.resolve(process.env.BENCH_CACHE ?? path.join(root, ".tmp", "bench-cache"));
  for (const corpus of CORPORA) {
    const file = path.join(root, "bench", "answers", `${corpus.id}.json`);
    const questions = JSON.parse(fs.readFileSync(file, "utf8"));
    const dir = path.join(
      cache,
      `${corpus.name}-${corpus.version}-codegraph-1.6.1`,
      `${corpus.name}-${corpus.version}`,
    );
    const cached = fs.existsSync(dir);

    test(`${corpus.id}: fair plans, ≥ 6 call-path questions and ≥ 6 change scenarios`, () => {
      assert.doesNotThrow(() => checkPlans(file, questions));
      assert.ok(questions.filter((q) => q.kind === "call-path").length >= 6);
      assert.ok(questions.filter((q) => q.kind === "changes").length >= 6);
    });

    test(`${corpus.id}: truth where the source defines it, edits that apply once`, {
      skip: !cached && "corpus not cached",
    }, () => {
      for (const q of questions) {
        assert.deepEqual(
          checkTruth(q.truth, dir).map(({ t, j }) => `${t.symbol} ${t.path}:${t.line} ${j.why}`),
          [],
          q.id,
        );
        for (const t of q.truth.filter((x) => !x.symbol))
          assert.ok(fs.existsSync(path.join(dir, t.path)), `${q.id} ${t.path}`);
        for (const e of q.edits ?? []) {
          const text = fs.readFileSync(path.join(dir, e.file), "utf8");
          assert.equal(text.split(e.old).length, 2, `${q.id}: ${e.file} holds its old text once`);
        }
      }
    });
  }
});
