//! CodeGraph's npm launcher skipped for the platform bundle it would exec (one Node start fewer).

use std::path::Path;

use super::Bundle;
use crate::manifest::read_manifest;

/// The host's OS and CPU as npm names them (`process.platform`, `process.arch`); None on Windows,
/// where the shim runs the bundle differently. The WebAssembly build asks its host (its own
/// target is `wasi`/`wasm32`).
fn npm_platform() -> Option<(String, String)> {
  #[cfg(target_family = "wasm")]
  let (platform, arch) = crate::host::platform()?;
  #[cfg(not(target_family = "wasm"))]
  let (platform, arch) = {
    let platform = match std::env::consts::OS {
      "macos" => "darwin",
      other => other,
    };
    let arch = match std::env::consts::ARCH {
      "x86_64" => "x64",
      "aarch64" => "arm64",
      other => other,
    };
    (platform.to_owned(), arch.to_owned())
  };
  (platform != "windows" && platform != "win32").then_some((platform, arch))
}

/// CodeGraph's npm package name; its `npm-shim.js` finds `<name>-<platform>-<arch>`.
const NPM_PACKAGE: &str = "@colbymchenry/codegraph";

/// When `executable` resolves to CodeGraph's npm shim (`<pkg>/npm-shim.js`, the package's
/// declared `codegraph` bin), the platform bundle's `bin/codegraph` found the way the shim's
/// `require.resolve` finds it: `node_modules` directories from the shim's real location upward.
/// The shim only starts Node to exec that launcher with the same arguments and environment (it
/// threads `CODEGRAPH_HOST_PPID`, which the launcher sets to the same host pid when run
/// directly). Not on Windows, where the shim runs the bundle differently and nothing tests it.
pub fn npm_bundle(executable: &Path) -> Option<Bundle> {
  let (platform, arch) = npm_platform()?;
  let real = executable.canonicalize().ok()?;
  let pkg_dir = real.parent()?;
  let manifest = read_manifest(&pkg_dir.join("package.json"))?;
  if manifest.name.as_deref() != Some(NPM_PACKAGE)
    || manifest.bin_path("codegraph")? != "npm-shim.js"
  {
    return None;
  }
  if real.file_name()? != "npm-shim.js" {
    return None;
  }
  let bundle_name = format!("{NPM_PACKAGE}-{platform}-{arch}");
  pkg_dir
    .ancestors()
    .filter(|dir| dir.file_name().is_none_or(|n| n != "node_modules"))
    .map(|dir| dir.join("node_modules").join(&bundle_name))
    .find_map(|bundle| {
      let launcher = bundle.join("bin").join("codegraph");
      std::fs::metadata(&launcher).ok()?.is_file().then_some(())?;
      let version = read_manifest(&bundle.join("package.json"))
        .filter(|m| m.name.as_deref() == Some(bundle_name.as_str()))
        .and_then(|m| m.version);
      Some(Bundle { launcher, version })
    })
}
