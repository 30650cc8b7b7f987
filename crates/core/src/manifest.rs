//! CodeGraph's `package.json`s: read only when a regular file of a sane size, for discovery (the
//! npm shim's platform bundle) and for the version beside the executable.

use std::io::Read;
use std::path::Path;

use crate::files::open_regular;

/// CodeGraph's npm package: its `package.json` sits beside the `npm-shim.js` launcher.
const PACKAGE_NAME: &str = "@colbymchenry/codegraph";
/// A `package.json` larger than this is not one of CodeGraph's.
const MAX_PACKAGE_JSON_BYTES: u64 = 256 * 1024;

/// The fields of a `package.json` that identify CodeGraph's packages.
#[derive(serde::Deserialize)]
pub struct Manifest {
  pub name: Option<String>,
  pub version: Option<String>,
  bin: Option<serde_json::Value>,
}

impl Manifest {
  /// The path a `bin` entry points at (`"bin": {"codegraph": "npm-shim.js"}`).
  pub fn bin_path(&self, name: &str) -> Option<&str> {
    self.bin.as_ref()?.get(name)?.as_str()
  }
}

/// A `package.json`, read only when it is a regular file of a sane size (opened non-blocking and
/// checked on the descriptor, so one swapped for a FIFO cannot stall a call).
pub fn read_manifest(path: &Path) -> Option<Manifest> {
  let file = open_regular(path).ok()?;
  if file.metadata().ok()?.len() > MAX_PACKAGE_JSON_BYTES {
    return None;
  }
  let mut text = String::new();
  file
    .take(MAX_PACKAGE_JSON_BYTES)
    .read_to_string(&mut text)
    .ok()?;
  let m: Manifest = serde_json::from_str(&text).ok()?;
  m.version
    .as_ref()
    .is_none_or(|v| !v.is_empty() && v.len() <= 64)
    .then_some(m)
}

/// CodeGraph's own version, from its `package.json`, when `executable` is that package's declared
/// `codegraph` bin (`<pkg>/npm-shim.js`, linked from `node_modules/.bin` or a global bin).
pub fn cli_package_version(executable: &Path) -> Option<String> {
  let real = executable.canonicalize().ok()?;
  let dir = real.parent()?;
  let m = read_manifest(&dir.join("package.json"))?;
  if m.name.as_deref() != Some(PACKAGE_NAME) {
    return None;
  }
  if dir.join(m.bin_path("codegraph")?).canonicalize().ok()? != real {
    return None;
  }
  m.version
}
