"""Checks a macOS .node built off macOS (no dyld here, so this is what can be proven):
a thin 64-bit Mach-O dylib of the expected CPU, exporting _napi_register_module_v1, with a
minimum macOS no newer than asked, linking only system libraries, binding no symbol by flat
(dynamic) lookup, and - for arm64, which refuses unsigned code - a valid ad-hoc signature.
Usage: macho-check.py FILE.node x86_64|arm64 MAX_MINOS (e.g. 11.0). Exit 1 on any failure."""

import hashlib
import struct
import sys

CPU = {"x86_64": 0x01000007, "arm64": 0x0100000C}
LC_SYMTAB, LC_DYSYMTAB, LC_CODE_SIGNATURE = 0x2, 0xB, 0x1D
LC_BUILD_VERSION, LC_VERSION_MIN_MACOSX = 0x32, 0x24
DYLIB_LOADS = {0xC, 0x80000018, 0x8000001F, 0x20, 0x80000023}  # load, weak, reexport, lazy, upward
SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")
DYNAMIC_LOOKUP_ORDINAL = 0xFE


def version(v):
    return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)


def check_signature(data, dataoff):
    """Every page hash of the CodeDirectory matches, and it covers the file up to itself."""
    _magic, _len, count = struct.unpack_from(">III", data, dataoff)
    for i in range(count):
        _type, boff = struct.unpack_from(">II", data, dataoff + 12 + 8 * i)
        b = dataoff + boff
        if struct.unpack_from(">I", data, b)[0] != 0xFADE0C02:
            continue
        (_m, _l, _v, flags, hashoff, _id, _ns, ncode, limit, hsize, htype, _p, pagelog) = (
            struct.unpack_from(">IIIIIIIIIBBBB", data, b))
        algo, page = {1: hashlib.sha1, 2: hashlib.sha256}[htype], 1 << pagelog
        bad = sum(
            algo(data[p * page:min((p + 1) * page, limit)]).digest()[:hsize]
            != data[b + hashoff + p * hsize:b + hashoff + (p + 1) * hsize]
            for p in range(ncode))
        return bad == 0 and limit == dataoff, f"code signature flags={flags:#x} pages={ncode} bad={bad}"
    return False, "code signature without a CodeDirectory"


def main(path, arch, max_minos):
    data = open(path, "rb").read()
    problems, facts = [], []
    magic, cpu, _sub, ftype, ncmds, _size, _flags = struct.unpack_from("<IiiIIII", data, 0)
    if magic != 0xFEEDFACF:
        return [f"not a thin 64-bit Mach-O (magic {magic:#x})"], facts
    if cpu != CPU[arch]:
        problems.append(f"CPU type {cpu:#x}, expected {arch}")
    if ftype not in (6, 8):  # MH_DYLIB (what napi-rs ships) or MH_BUNDLE
        problems.append(f"file type {ftype}, not a dylib/bundle")
    actual = {v: k for k, v in CPU.items()}.get(cpu, hex(cpu))
    facts.append(f"Mach-O {actual} {'MH_DYLIB' if ftype == 6 else 'MH_BUNDLE' if ftype == 8 else ftype}")
    off, dylibs, minos, symtab, signature = 32, [], None, None, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd in DYLIB_LOADS:
            name_off = struct.unpack_from("<I", data, off + 8)[0]
            dylibs.append(data[off + name_off:off + size].split(b"\0")[0].decode())
        elif cmd == LC_BUILD_VERSION:
            minos = version(struct.unpack_from("<I", data, off + 12)[0])
        elif cmd == LC_VERSION_MIN_MACOSX:
            minos = version(struct.unpack_from("<I", data, off + 8)[0])
        elif cmd == LC_SYMTAB:
            symtab = struct.unpack_from("<IIII", data, off + 8)
        elif cmd == LC_CODE_SIGNATURE:
            signature = struct.unpack_from("<I", data, off + 8)[0]
        off += size
    foreign = [d for d in dylibs if not d.startswith(SYSTEM_PREFIXES)]
    if foreign:
        problems.append(f"links non-system libraries: {foreign}")
    facts.append("links " + ", ".join(d.rsplit("/", 1)[-1] for d in dylibs))
    limit = tuple(int(x) for x in (max_minos + ".0.0").split(".")[:3])
    if minos is None:
        problems.append("no minimum macOS version (LC_BUILD_VERSION)")
    else:
        facts.append("minos %d.%d" % minos[:2])
        if minos > limit:
            problems.append("minimum macOS %d.%d.%d is newer than %s" % (*minos, max_minos))
    if symtab is None:
        problems.append("no symbol table")
    else:
        symoff, nsyms, stroff, _strsize = symtab
        exported, flat = set(), []
        for i in range(nsyms):
            strx, ntype, _sect, desc, _value = struct.unpack_from("<IBBHQ", data, symoff + 16 * i)
            name = data[stroff + strx:data.index(b"\0", stroff + strx)].decode(errors="replace")
            if ntype & 0xE0:  # a debugging (stab) entry
                continue
            if ntype & 0x01 and not ntype & 0x10 and ntype & 0x0E == 0x0E:
                exported.add(name)
            elif ntype & 0x01 and ntype & 0x0E == 0 and (desc >> 8) == DYNAMIC_LOOKUP_ORDINAL:
                flat.append(name)
        if "_napi_register_module_v1" not in exported:
            problems.append("_napi_register_module_v1 is not exported")
        else:
            facts.append("exports _napi_register_module_v1")
        if flat:
            problems.append(f"{len(flat)} symbols bound by flat lookup (e.g. {flat[:3]})")
    if arch == "arm64":
        if signature is None:
            problems.append("arm64 code without LC_CODE_SIGNATURE (macOS would refuse it)")
        else:
            ok, fact = check_signature(data, signature)
            (facts if ok else problems).append(fact + ("" if ok else " - invalid"))
    return problems, facts


if __name__ == "__main__":
    problems, facts = main(*sys.argv[1:4])
    print("; ".join(facts))
    for p in problems:
        print("FAIL: " + p)
    sys.exit(1 if problems else 0)
