//! The CodeGraph CLI installed beside this package (the checkout's `node_modules/.bin/codegraph`
//! after `npm install`, or one a user installed next to pi-codegraph): the last place discovery
//! looks, after `PI_CODEGRAPH_BIN` and PATH. The package tells the runner where it is once, when
//! it loads (`setPackageCli`); it is a fact of this process's copy of the package, never of the
//! workspace or the model. The workspace rule holds for it as for PATH: one that resolves inside
//! the workspace is not run unless the user opted in.

use std::path::PathBuf;
use std::sync::RwLock;

static PACKAGE_CLI: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Sets (or with `None` clears) the CLI beside the package; a relative path is ignored.
pub fn set_package_cli(path: Option<PathBuf>) {
  let path = path.filter(|p| p.is_absolute());
  if let Ok(mut slot) = PACKAGE_CLI.write() {
    *slot = path;
  }
}

/// The CLI beside the package, when one was set and is a file now.
pub fn package_cli() -> Option<PathBuf> {
  let path = PACKAGE_CLI.read().ok()?.clone()?;
  path.is_file().then_some(path)
}
