// Every process the addon starts is reaped, even one that ends on its own while the host lives:
// the host watch's reaper (crates/core/src/host_watch.rs, forked once per host) is a child of the
// host that no one else waits for (libuv waits only for Node's children, tokio only for its own).
// The Node runner's reaper is a Node child, reaped by libuv.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectResult, fakeCli } from "../helpers/index.mjs";
import { LINUX, processTable, procStat, waitFor } from "../helpers/processes.mjs";
import { forRunner, runners, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const native = runners.find((b) => b.id === "native");

/** This process's children named `comm` (the reaper names itself pi-cg-reaper). */
const childrenNamed = (comm) => processTable().filter((p) => p.ppid === process.pid && p.comm === comm);

test("native runner: a host-watch reaper that ended while the host lives is reaped, never left a zombie", {
  skip: (!LINUX && "the host watch's reaper is Unix; /proc is Linux") || (!native && "native runner not selected"),
}, async () => {
  const { exploreWith } = forRunner(native);
  const fake = fakeCli([["stdout", "an answer\n"]]);
  expectResult(await exploreWith(fake.file, "q", suite.ws));
  const [reaper] = childrenNamed("pi-cg-reaper").filter((p) => p.state !== "Z");
  assert.ok(reaper, "the first call started the host watch's reaper");
  // Whatever ends it (an OOM kill, a user's kill): it is gone while the host lives.
  process.kill(reaper.pid, "SIGKILL");
  // Ended: a zombie, or already reaped when the first call's last write to it (the unwatch of its
  // group, which may land after the answer) found its pipe broken.
  await waitFor(() => (procStat(reaper.pid)?.state ?? "Z") === "Z", { what: "the reaper to end" });
  // The next call finds its pipe broken, starts a new reaper, and waits for the old one.
  expectResult(await exploreWith(fake.file, "q", suite.ws));
  await waitFor(() => procStat(reaper.pid) === null, { timeoutMs: 3000, what: "the ended reaper to be reaped" });
  assert.equal(childrenNamed("pi-cg-reaper").filter((p) => p.state !== "Z").length, 1, "one live reaper again");
});
