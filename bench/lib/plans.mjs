// Fair plans for the answers bench (bench/answers/README.md): a planned call may use only names a
// model reading the question could have, or names an earlier answer of the same plan printed.
// Every step says where each name it uses came from, `sources: { "<name>": "question" |
// "answer:<call index>" }`; `checkPlan` refuses a plan whose step uses a name it does not source or
// sources wrongly from the question (the bench fails loudly before it runs anything), and
// `unmetSources` says, at run time, which names a step takes from an earlier answer that the
// answer did not print (the bench does not make that call and counts it as refused).

/** The arguments that carry names, per call (a path, a symbol, a search word). */
const NAME_ARGS = ["symbol", "file", "from", "to", "name"];

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** Whether `text` holds `name` as a whole word (not inside a longer identifier or path). */
export function holdsWhole(text, name) {
  return new RegExp(`(?<![\\w$/-])${escapeRegExp(name)}(?![\\w$/-])`, "u").test(text);
}

/**
 * Whether `text` gives `name`: the name whole, or for a qualified name (`A::b`, `A.b`) each part
 * whole (a model may join two names the text gives). A path must be whole.
 */
export function gives(text, name) {
  if (holdsWhole(text, name)) return true;
  if (name.includes("/")) return false;
  const parts = name.split(/::|\./u).filter(Boolean);
  return parts.length > 1 && parts.every((p) => holdsWhole(text, p));
}

/**
 * The code-like words of a request in prose: a path, a qualified name, an identifier with `_`, `$`
 * or an inner capital (`runPromise`). Plain words, capitalised or not, are not names.
 */
export function codeWords(request) {
  const words = request.split(/[\s,;?!()[\]{}"'`<>]+/u);
  const out = [];
  for (let w of words) {
    w = w.replace(/^[^\w$]+|[^\w$]+$/gu, "");
    if (!w) continue;
    if (/[_$/]|::|\.[\w$]|[a-z][A-Z]/u.test(w)) out.push(w);
  }
  return [...new Set(out)];
}

/** The names one step uses: its name-carrying arguments and the code-like words of a request. */
export function stepNames(step) {
  const args = step.args ?? {};
  const names = NAME_ARGS.filter((k) => typeof args[k] === "string").map((k) => args[k]);
  if (typeof args.request === "string") names.push(...codeWords(args.request));
  return [...new Set(names)];
}

/**
 * Every fault of `q`'s plans, in words (none: `[]`): a name used without a source, a source the
 * question does not give, an answer that is not an earlier call of the same plan.
 */
export function planFaults(q) {
  const faults = [];
  for (const [config, plan] of Object.entries(q.plans ?? {})) {
    plan.forEach((step, i) => {
      const sources = step.sources ?? {};
      for (const name of stepNames(step)) {
        const from = sources[name];
        const where = `${q.id} ${config} call ${i} (${step.tool})`;
        if (from === undefined) faults.push(`${where} uses "${name}" and does not say where it came from`);
        else if (from === "question") {
          if (!gives(q.question, name)) faults.push(`${where}: the question does not give "${name}"`);
        } else {
          const m = /^answer:(\d+)$/u.exec(from);
          if (!m || Number(m[1]) >= i)
            faults.push(`${where}: "${name}" from "${from}", which is not an earlier answer of the plan`);
        }
      }
    });
  }
  return faults;
}

/** Refuses (throws) when any question's plan uses a name from outside the question and its answers. */
export function checkPlans(file, questions) {
  const faults = questions.flatMap(planFaults);
  if (faults.length > 0) {
    throw new Error(
      `${file}: plans that use names from outside (fix the plan or its sources):\n  ${faults.join("\n  ")}`,
    );
  }
}

/** The names `step` takes from earlier answers that those answers (`texts`) do not give. */
export function unmetSources(step, texts) {
  const unmet = [];
  for (const [name, from] of Object.entries(step.sources ?? {})) {
    const m = /^answer:(\d+)$/u.exec(from);
    if (m && !gives(texts[Number(m[1])] ?? "", name)) unmet.push(`${name} (not in answer ${m[1]})`);
  }
  return unmet;
}
