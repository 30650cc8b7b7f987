// The network: one explore (preflight, discovery, version, run) opens no IP socket.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fakeCli, tempDir } from "../helpers/index.mjs";
import { assertNothingLeft, runNode } from "../helpers/processes.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const systemEnv = { ...process.env, PATH: saved.PATH };
const strace = spawnSync("strace", ["-V"], { encoding: "utf8", env: systemEnv });
const straceMissing =
  strace.error || strace.status !== 0 ? "strace is not installed (apt-get install -y strace)" : false;

eachRunner("the network", ({ callee }) => {
  test("one explore opens no AF_INET/AF_INET6 socket (strace -f)", { skip: straceMissing }, async (t) => {
    const fake = fakeCli([["stdout", "offline answer\n"]]);
    const trace = path.join(tempDir("pi-codegraph-faults-strace-"), "trace.txt");
    const script = `${callee}("q", ${JSON.stringify(suite.ws)}).then(
      (r) => process.stdout.write("RESULT " + r.text), (e) => process.stdout.write("ERROR " + e.code + " " + e.message));`;
    const r = await runNode(["-f", "-qq", "-e", "trace=network,execve", "-o", trace, process.execPath, "-e", script], {
      command: "strace",
      env: { ...process.env, PATH: saved.PATH, PI_CODEGRAPH_BIN: fake.file },
      timeoutMs: 60000,
    });
    if (/PTRACE|Operation not permitted/i.test(r.stderr) && !fs.existsSync(trace)) {
      t.skip(`strace cannot trace here: ${r.stderr.split("\n")[0]}`);
      return;
    }
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "RESULT offline answer\n");
    const lines = fs.readFileSync(trace, "utf8").split("\n").filter(Boolean);
    assert.ok(
      lines.some((l) => l.includes(`execve("${fake.file}"`)),
      "the trace covers the CLI (execve of the fake)",
    );
    // What was seen, per process: syscall and the address family of the socket or address.
    const seen = new Map();
    for (const l of lines) {
      const m = l.match(/^(\d+)\s+(\w+)\((.*)$/);
      if (!m || m[2] === "execve") continue;
      const family =
        m[3].match(/^(AF_\w+)/)?.[1] ?? m[3].match(/sa_family=(AF_\w+)/)?.[1] ?? `fd ${m[3].split(",")[0]}`;
      const key = `${m[2]}(${family})`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    t.diagnostic(`network syscalls seen: ${[...seen].map(([k, v]) => `${k} x${v}`).join(", ") || "none"}`);
    // An IP socket is one created with AF_INET/AF_INET6, or an address of that family passed to
    // connect/bind/sendto. (Netlink interface dumps mention ifa_family=AF_INET: that is data.)
    const inet = lines.filter((l) => /\bsocket\((AF|PF)_INET6?\b|sa_family=AF_INET6?\b/.test(l));
    assert.deepEqual(inet, [], "no AF_INET/AF_INET6 socket");
    await assertNothingLeft();
  });
});
