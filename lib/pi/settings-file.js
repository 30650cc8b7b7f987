// Reading the small files the glue keeps in Pi's agent directory (the focused tools chosen, the
// roots added, per project: lib/pi/tools/choice.js, lib/pi/roots/roots.js). Such a file is the user's to edit, so
// it may be anything: a FIFO (a plain read blocks the host's only thread for good, at session
// start), a device (/dev/zero never ends), a socket, a directory, a huge file, or a regular file
// swapped for a FIFO between the check and the open. Only a regular file is read: its metadata
// first, then opened non-blocking (the open of a FIFO swapped in cannot block) and checked again
// on the descriptor, and read up to a bound. Anything else is a reason (facts, worded by
// lib/words/settings.js) and the caller's defaults apply.

const fs = require("node:fs");
const { REGULAR_OPEN_FLAGS } = require("../contract/files.js");

/** The largest settings file read: a tools list is ~100 bytes, 16 roots ~4 KiB. */
const MAX_SETTINGS_BYTES = 64 * 1024;

/** What a file that is not a regular one is: "fifo", "socket", "directory", "device" or "other". */
function kindOf(st) {
  if (st.isFIFO()) return "fifo";
  if (st.isSocket()) return "socket";
  if (st.isDirectory()) return "directory";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "device";
  return "other";
}

/** `{ reason }` of a file that is not a regular file, or is larger than the bound; null when it may be read. */
function refusal(st) {
  if (!st.isFile()) return { reason: { is: "notRegular", kind: kindOf(st) } };
  if (st.size > MAX_SETTINGS_BYTES) return { reason: { is: "tooLarge", maxBytes: MAX_SETTINGS_BYTES } };
  return null;
}

/** The failure of a system call as a reason (ENXIO: a socket, which cannot be opened). */
function failed(err) {
  if (err?.code === "ENXIO") return { reason: { is: "notRegular", kind: "socket" } };
  return { reason: { is: "unreadable", code: String(err?.code ?? err?.message ?? err) } };
}

/**
 * The text of the settings file `file`: `{ text }`, `{ absent: true }` (no such file), or
 * `{ reason }` (`{ is: "notRegular", kind } | { is: "tooLarge", maxBytes } | { is: "unreadable",
 * code }`). Never blocks on a special file and never reads more than MAX_SETTINGS_BYTES + 1.
 */
function readSettingsFile(file) {
  try {
    const early = refusal(fs.statSync(file));
    if (early) return early;
  } catch (err) {
    return err?.code === "ENOENT" ? { absent: true } : failed(err);
  }
  let fd;
  try {
    fd = fs.openSync(file, REGULAR_OPEN_FLAGS); // non-blocking: a FIFO swapped in cannot block
  } catch (err) {
    return err?.code === "ENOENT" ? { absent: true } : failed(err);
  }
  try {
    const late = refusal(fs.fstatSync(fd));
    if (late) return late;
    const buf = Buffer.alloc(MAX_SETTINGS_BYTES + 1);
    let got = 0;
    for (let n = -1; n !== 0 && got < buf.length; got += n) n = fs.readSync(fd, buf, got, buf.length - got, got);
    if (got > MAX_SETTINGS_BYTES) return { reason: { is: "tooLarge", maxBytes: MAX_SETTINGS_BYTES } };
    return { text: buf.subarray(0, got).toString("utf8") };
  } catch (err) {
    return failed(err);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {}
  }
}

module.exports = { MAX_SETTINGS_BYTES, readSettingsFile };
