// An executable the kernel will not run itself (ENOEXEC) is CODEGRAPH_SPAWN on both runners:
// libuv would hand it to /bin/sh, which reads it as shell commands; the addon never does.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, tempDir } from "../helpers/index.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

/** A 64-bit little-endian ELF header for `machine`, with `phnum` program headers, then `tail`. */
function elf(machine, { phnum = 1, tail = "" } = {}) {
  const h = Buffer.alloc(64);
  h.write("\x7fELF", 0, "latin1");
  h.set([2, 1, 1], 4); // 64-bit, little-endian, version 1
  h.writeUInt16LE(2, 16); // ET_EXEC
  h.writeUInt16LE(machine, 18);
  h.writeUInt32LE(1, 20);
  h.writeBigUInt64LE(64n, 32); // e_phoff
  h.writeUInt16LE(64, 52);
  h.writeUInt16LE(56, 54);
  h.writeUInt16LE(phnum, 56);
  return Buffer.concat([h, Buffer.alloc(phnum * 56), Buffer.from(tail)]);
}

/** An executable `codegraph` with `content`; `ran` is the file its shell reading would create. */
function planted(content) {
  const dir = tempDir("pi-codegraph-execfmt-");
  const ran = path.join(dir, "ran");
  const file = path.join(dir, "codegraph");
  fs.writeFileSync(file, typeof content === "function" ? content(ran) : content, { mode: 0o755 });
  return { file, ran };
}
const shellLine = (ran) => `\necho RAN > ${ran}\n`;

eachRunner("executables the kernel will not run", ({ exploreWith }) => {
  const cases = {
    "a script-less garbage header": (ran) => Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from(shellLine(ran))]),
    "an ELF for another CPU (s390x)": (ran) => elf(22, { tail: shellLine(ran) }),
    "a corrupt ELF for this CPU (no program headers)": (ran) => elf(62, { phnum: 0, tail: shellLine(ran) }),
    "a truncated ELF header": (ran) => `\x7fELF${shellLine(ran)}`,
  };
  for (const [what, content] of Object.entries(cases)) {
    test(`${what}: CODEGRAPH_SPAWN, and no shell ran it`, {
      skip: process.arch !== "x64" && "x64 headers",
    }, async () => {
      const { file, ran } = planted(content);
      expectError(await exploreWith(file, "q", suite.ws), "CODEGRAPH_SPAWN");
      assert.equal(fs.existsSync(ran), false, "/bin/sh never read it as commands");
    });
  }

  test("a #! script whose interpreter is a foreign ELF: CODEGRAPH_SPAWN, no shell", {
    skip: process.arch !== "x64" && "x64 headers",
  }, async () => {
    const interp = planted((ran) => elf(22, { tail: shellLine(ran) }));
    const { file, ran } = planted((r) => `#!${interp.file}${shellLine(r)}`);
    expectError(await exploreWith(file, "q", suite.ws), "CODEGRAPH_SPAWN");
    assert.equal(fs.existsSync(ran), false);
    assert.equal(fs.existsSync(interp.ran), false);
  });
});
