// A Windows drive as WSL sees it, made real for a test: directories under /mnt/q (the tests run
// as root on Linux; elsewhere, or where /mnt cannot be written, none is made and the suite is
// skipped). /mnt/q is made when absent and removed after the file's tests when empty again
// (another run may be using it); each directory made is removed after the file's tests.
import fs from "node:fs";
import path from "node:path";
import { after } from "node:test";

export const DRIVE = "/mnt/q";
const made = [];
let driveMade = false;

/** A fresh directory on the drive, named `<prefix>XXXXXX`, or null when it cannot be made. */
export function dirOnDrive(prefix) {
  if (process.platform !== "linux") return null;
  try {
    if (!fs.existsSync(DRIVE)) {
      fs.mkdirSync(DRIVE, { recursive: true });
      driveMade = true;
    }
    const dir = fs.mkdtempSync(path.join(DRIVE, prefix));
    made.push(dir);
    return dir;
  } catch {
    return null;
  }
}

after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  if (driveMade) {
    try {
      fs.rmdirSync(DRIVE); // only when empty
    } catch {}
  }
});
