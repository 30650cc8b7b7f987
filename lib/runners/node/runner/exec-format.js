// Whether the kernel will execute a file itself. For a file it refuses (ENOEXEC: no `#!` line, a
// corrupt binary, a binary for another CPU), libuv falls back to running it with /bin/sh, which
// then reads the file as shell commands. The addon never does (CODEGRAPH_SPAWN), so the Node
// runner refuses such a file before the spawn. Judged from the header as Linux's binfmt_elf and
// binfmt_script judge it: an ELF must be for this machine (class, byte order, e_machine; unless
// an enabled binfmt_misc handler, such as qemu-user, matches it), of an executable
// type and with program headers inside the file; a `#!` script's interpreter is judged the same
// way, as the kernel nests them (at most 4 deep).

const fs = require("node:fs");
const path = require("node:path");
const { IS_WINDOWS } = require("../../../contract/limits.js");

/** ELF e_machine and class (1: 32-bit, 2: 64-bit) this machine runs, by Node's process.arch. */
const ELF_MACHINES = {
  x64: [
    [62, 2],
    [3, 1], // IA-32 compatibility
  ],
  ia32: [[3, 1]],
  arm64: [
    [183, 2],
    [40, 1], // AArch32 compatibility
  ],
  arm: [[40, 1]],
  riscv64: [[243, 2]],
  ppc64: [[21, 2]],
  s390x: [[22, 2]],
  loong64: [[258, 2]],
};
/** Mach-O (thin and fat) magic numbers, as the first four bytes read big-endian. */
const MACHO = [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe];
/** The kernel reads the first 256 bytes (BINPRM_BUF_SIZE) and nests interpreters 4 deep. */
const HEAD_BYTES = 256;
const MAX_NESTING = 4;

/**
 * Whether an enabled binfmt_misc handler (qemu-user for a foreign CPU, say) matches `head` by
 * magic: the kernel then runs the file through it.
 */
function binfmtRuns(head) {
  const dir = "/proc/sys/fs/binfmt_misc";
  let names;
  try {
    names = fs.readdirSync(dir).filter((n) => n !== "register" && n !== "status");
  } catch {
    return false;
  }
  return names.some((name) => {
    let entry;
    try {
      entry = fs.readFileSync(path.join(dir, name), "latin1");
    } catch {
      return false;
    }
    const field = (key) => new RegExp(`^${key} (\\S+)$`, "m").exec(entry)?.[1];
    const magic = Buffer.from(field("magic") ?? "", "hex");
    const mask = Buffer.from(field("mask") ?? "", "hex");
    const offset = Number(field("offset") ?? 0);
    if (!entry.startsWith("enabled") || magic.length === 0) return false;
    return [...magic].every((byte, i) => ((head[offset + i] ?? -1) & (mask[i] ?? 0xff)) === byte);
  });
}

/** Why the kernel would refuse this ELF header (`head`, `size` bytes in all), or null. */
function elfProblem(head, size) {
  if (head.length < 52) return "a truncated ELF header";
  const elfClass = head[4];
  const little = head[5] === 1;
  if ((elfClass !== 1 && elfClass !== 2) || (head[5] !== 1 && head[5] !== 2) || head[6] !== 1)
    return "a corrupt ELF header";
  const u16 = (at) => (little ? head.readUInt16LE(at) : head.readUInt16BE(at));
  const type = u16(16);
  const machine = u16(18);
  const wide = elfClass === 2;
  const phoff = wide
    ? Number(little ? head.readBigUInt64LE(32) : head.readBigUInt64BE(32))
    : little
      ? head.readUInt32LE(28)
      : head.readUInt32BE(28);
  const phentsize = u16(wide ? 54 : 42);
  const phnum = u16(wide ? 56 : 44);
  if (type !== 2 && type !== 3) return "an ELF file that is not an executable";
  const native = ELF_MACHINES[process.arch];
  if (native && !native.some(([m, c]) => m === machine && c === elfClass) && !binfmtRuns(head))
    return `an ELF binary for another machine (e_machine ${machine}, not ${process.arch})`;
  if (phentsize !== (wide ? 56 : 32) || phnum === 0 || phoff + phnum * phentsize > size)
    return "a corrupt ELF binary (its program headers are missing or outside the file)";
  return null;
}

/**
 * Why the kernel would refuse to execute `program` (so libuv would hand it to /bin/sh), or null
 * when it would run it, or when the file cannot be read (the spawn then says why itself).
 */
function execFormatProblem(program, depth = 0) {
  if (IS_WINDOWS) return null;
  let head;
  let size;
  try {
    fs.accessSync(program, fs.constants.X_OK);
    const fd = fs.openSync(program, "r");
    try {
      size = fs.fstatSync(fd).size;
      head = Buffer.alloc(Math.min(HEAD_BYTES, size));
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null; // not executable or unreadable: let the spawn itself report why
  }
  const magic = head.length >= 4 ? head.readUInt32BE(0) : 0;
  const macos = process.platform === "darwin";
  if (magic === 0x7f454c46) return macos ? "an ELF binary, which macOS does not run" : elfProblem(head, size);
  if (MACHO.includes(magic)) return macos ? null : "a macOS (Mach-O) binary";
  if (head[0] === 0x23 && head[1] === 0x21) {
    // `#!interpreter [arg]`: the interpreter must be runnable too, or ENOEXEC comes back.
    const line = head.subarray(2).toString("latin1").split("\n")[0].trim();
    const interpreter = line.split(/[ \t]/)[0];
    if (!interpreter) return "a #! line without an interpreter";
    if (depth >= MAX_NESTING) return "#! interpreters nested too deep";
    const inner = execFormatProblem(path.resolve(interpreter), depth + 1);
    return inner && `its #! interpreter ${interpreter} is ${inner}`;
  }
  return "neither a #! script nor a native program";
}

module.exports = { execFormatProblem };
