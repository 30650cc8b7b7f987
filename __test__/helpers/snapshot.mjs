// A directory tree as data, never following a link: for "byte-identical afterwards" assertions
// where the tree holds links (hashTree follows them).
import fs from "node:fs";
import path from "node:path";

/** Every path under `dir` with its type, link text or bytes (base64), never following a link. */
export function snapshot(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = "dir";
        walk(p);
      } else out[rel] = `file:${fs.readFileSync(p).toString("base64")}`;
    }
  };
  walk(dir);
  return out;
}
