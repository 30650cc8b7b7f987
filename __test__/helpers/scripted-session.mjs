// A scripted session in the real Pi (rpc mode) over the loopback model: what a provider with
// prompt caching would see. Each prompt is four requests: the model asks codegraph_explore, writes
// a file with Pi's own `write` tool (an edit the index does not know), asks codegraph_explore
// again, and answers. Between prompts the user may type a command (`userActions`, keyed by the
// prompt index before which it runs). Used by __test__/real-pi/prompt-cache.test.mjs (the guarantee) and
// bench/figures/cache.mjs (the figure).
import fs from "node:fs";
import path from "node:path";
import { startFakeOpenAI } from "./fake-openai.mjs";
import { root, waitFor } from "./index.mjs";
import { installPacked } from "./packed.mjs";
import { contentText, indexShop, killAllPi, piEnv, piScratch, startPiRpc, writeModelsJson } from "./pi-harness.mjs";

const MODEL = "cache-model";
const QUESTION = "how does CheckoutService.checkout call charge";

/** The model's next calls, from the request so far: explore, write, explore, then an answer. */
function plan(body) {
  const messages = body?.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const calls = messages.slice(lastUser + 1).filter((m) => m.role === "tool").length;
  const n = messages.filter((m) => m.role === "user").length;
  if (calls === 0) return [{ id: `call_${n}_a`, request: QUESTION }];
  if (calls === 1)
    return [
      {
        id: `call_${n}_w`,
        name: "write",
        arguments: { path: `src/note-${n}.ts`, content: `export const note${n} = ${n};\n` },
      },
    ];
  if (calls === 2) return [{ id: `call_${n}_b`, request: QUESTION }];
  return [];
}

/** The leading system message of a request body (OpenAI's `system` or `developer` role). */
export const leadingSystem = (body) => {
  const first = body?.messages?.[0];
  return first && (first.role === "system" || first.role === "developer") ? contentText(first) : "";
};
/** A request body's top-level tool definitions, as one comparable string. */
export const toolArray = (body) => JSON.stringify(body?.tools ?? []);
/** How many times `values` changes from one to the next. */
export const changes = (values) => values.filter((v, i) => i > 0 && v !== values[i - 1]).length;

/**
 * Runs `prompts` prompts in one Pi session; returns the request bodies and each user action's
 * index in them (the first request after it). `midConversation`: the model accepts system
 * messages mid-conversation (Pi 1.x then appends prompt changes instead of rewriting the head).
 * The extension is the packed package as `pi install` installs it (helpers/packed.mjs), or the
 * directory `extension` names, loaded with `-e` (the bench's earlier commit).
 */
export async function scriptedSession({ prompts = 5, userActions = {}, midConversation = false, extension } = {}) {
  const { scratch, home, agentDir } = piScratch("pi-codegraph-cache-");
  const ws = path.join(scratch, "shop");
  indexShop(ws);
  const bin = path.join(root, "node_modules", ".bin");
  const env = piEnv({ agentDir, home, pathDirs: [bin, path.dirname(process.execPath), "/usr/bin", "/bin"] });
  if (!extension) {
    const { result } = await installPacked({ cwd: scratch, env });
    if (result.code !== 0) throw new Error(`pi install: exit ${result.code}: ${result.stderr.slice(-2000)}`);
  }
  const server = await startFakeOpenAI({ plan });
  writeModelsJson(agentDir, server.baseUrl, [MODEL], midConversation ? { supportsMidConvoSystemMessages: true } : {});
  const loaded = extension ? ["-e", extension] : [];
  const args = ["--offline", "--no-session", "--no-context-files", ...loaded, "--provider", "fake", "--model", MODEL];
  const rpc = startPiRpc(args, { cwd: ws, env });
  const actionsAt = [];
  try {
    let sent = 0;
    const send = async (message) => {
      const id = `m${++sent}`;
      const ended = rpc.events.filter((e) => e.type === "agent_end").length;
      const notes = rpc.events.filter((e) => e.method === "notify").length;
      rpc.send({ id, type: "prompt", message });
      await rpc.waitForEvent((e) => e.type === "response" && e.id === id, { what: `${id} accepted` });
      if (message.startsWith("/")) {
        // A /codegraph command is done when it has said what it did.
        await waitFor(() => rpc.events.filter((e) => e.method === "notify").length > notes, {
          timeoutMs: 15000,
          what: `${message}'s notification`,
        });
        return;
      }
      await waitFor(() => rpc.events.filter((e) => e.type === "agent_end").length > ended, {
        timeoutMs: 30000,
        what: `${id}'s agent_end`,
      });
    };
    for (let i = 0; i < prompts; i++) {
      if (userActions[i]) {
        await send(userActions[i]);
        actionsAt.push(server.bodiesFor(MODEL).length);
      }
      await send(`${QUESTION} (${i + 1})`);
    }
    const exit = await rpc.end();
    return { bodies: server.bodiesFor(MODEL), actionsAt, exit, stderr: rpc.stderr, ws };
  } finally {
    killAllPi();
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
