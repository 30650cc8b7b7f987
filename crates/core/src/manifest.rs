//! CodeGraph's `package.json`s: read only when a regular file of a sane size, for discovery (the
//! npm shim's platform bundle) and for the version beside the executable.

use std::io::Read;
use std::path::Path;

use crate::files::open_regular;

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
