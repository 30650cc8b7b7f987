// A real npm registry on 127.0.0.1 for the publish rehearsal: verdaccio (the pinned release tool,
// .ci/release/package.json) with its own storage and no uplinks, so it holds only what the
// rehearsal publishes into it; a user made through the registry's own login endpoint, whose token
// goes into an npmrc that every npm of the rehearsal reads (NPM_CONFIG_USERCONFIG).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/** A port the OS just gave out and took back (verdaccio takes `--listen host:port`, not port 0). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const CONFIG = `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
uplinks: {}
# The targets lane's .node files are dev builds of 25 to 35 MB each (verdaccio's default: 10 MB).
max_body_size: 1gb
packages:
  "**":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
log: { type: stdout, format: pretty, level: warn }
`;

/**
 * Starts the registry in `dir`: `{ url, npmrc, log, close }`. `verdaccio` is its command; `env`
 * the environment it runs in (PATH with the Node it needs).
 */
export async function startRegistry(dir, { verdaccio, env }) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "config.yaml"), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(verdaccio, ["--config", path.join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  let exited = false;
  // Ready when it says it listens (its log line "http address - <url>"), not after a poll.
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`verdaccio did not listen within 30 s:\n${log}`)), 30000);
    const read = (d) => {
      log += d;
      if (log.includes(`http address - ${url}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => {
      exited = true;
      clearTimeout(timer);
      reject(new Error(`verdaccio exited (${code}) before it listened:\n${log}`));
    });
  });
  const close = () =>
    new Promise((resolve) => {
      if (exited) return resolve();
      child.on("exit", () => resolve());
      child.kill("SIGTERM");
    });
  try {
    await listening;
    const login = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "rehearsal", password: "rehearsal-only" }),
    });
    const { token } = await login.json();
    if (!token) throw new Error(`the registry made no user (HTTP ${login.status})`);
    const npmrc = path.join(dir, "npmrc");
    fs.writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, npmrc, log: () => log, close };
  } catch (error) {
    await close();
    throw error;
  }
}
