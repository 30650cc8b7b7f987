// What a provider with prompt caching sees over a session in the real Pi (rpc, the pinned Pi
// 1.x, the loopback model, an indexed copy of the shop fixture): five prompts of four requests
// each (the model asks codegraph_explore, writes a file with Pi's `write` tool, asks again, and
// answers: __test__/helpers/scripted-session.mjs), counted as changes of the leading system
// message and of the top-level tool definitions from one request to the next. Then the same
// session with one user action (`/codegraph tools all` before the third prompt), for a model that
// accepts mid-conversation system messages and for one that does not. And the quiet session with
// the extension of commit BEFORE (the last before issue 32), loaded from a `git archive` of it.
// `node bench/run.mjs cache` (about 40 seconds).

import fs from "node:fs";
import { changes, leadingSystem, scriptedSession, toolArray } from "../../__test__/helpers/scripted-session.mjs";
import { tempDir, unpackCommit } from "../lib/setup.mjs";

const PROMPTS = 5;
const BEFORE = "8daa1c9";

/** The session's counts: `{ requests, system, tools }`. */
async function counted(options) {
  const { bodies, exit, stderr } = await scriptedSession({ prompts: PROMPTS, ...options });
  if (exit.code !== 0) throw new Error(`pi exited ${exit.code}: ${stderr.slice(-1000)}`);
  return { requests: bodies.length, system: changes(bodies.map(leadingSystem)), tools: changes(bodies.map(toolArray)) };
}

export async function cache() {
  const quiet = await counted({});
  const action = { userActions: { 2: "/codegraph tools all" } };
  const midConversation = await counted({ ...action, midConversation: true });
  const headOnly = await counted(action);
  const tmp = tempDir("cgbench-cache-");
  let before;
  try {
    before = await counted({ extension: unpackCommit(BEFORE, tmp) });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const row = (label, c) => [label, String(c.requests), String(c.system), String(c.tools)];
  return {
    title: "Prompt cache: what moves under the model",
    about: `Real Pi in rpc mode over the loopback model, ${PROMPTS} prompts of four requests each (codegraph_explore, Pi's write, codegraph_explore, an answer); changes of the leading system message and of the top-level tools array between consecutive requests. With a user action: \`/codegraph tools all\` typed before the third prompt.`,
    tables: [
      {
        caption: "Changes per session",
        head: ["session", "requests", "leading system message", "tools array"],
        rows: [
          row("the model's calls and edits only", quiet),
          row("+ /codegraph tools all, model accepts mid-conversation system messages", midConversation),
          row("+ /codegraph tools all, model does not", headOnly),
          row(`the model's calls and edits only, extension of commit ${BEFORE} (before issue 32)`, before),
        ],
      },
    ],
    notes: [
      "A change the user makes reaches a model that accepts mid-conversation system messages as one appended system message (Pi 1.x); any other model gets a rewritten head, and a provider re-reads the conversation from there.",
    ],
    targets: [
      {
        what: "Leading-system-message and tools-array changes without user action",
        target: "0",
        measured: String(quiet.system + quiet.tools),
        met: quiet.system + quiet.tools === 0,
        why: "the tools' words follow only readiness and the user's choices; the model's edits are named on the answers about them, never in the prompt.",
      },
      {
        what: "Leading-system-message changes after a user action, model accepting mid-conversation system messages",
        target: "0",
        measured: String(midConversation.system),
        met: midConversation.system === 0,
        why: "the change goes through Pi's own registerTool/setActiveTools, which Pi 1.x appends as a delta for such models.",
      },
    ],
  };
}
