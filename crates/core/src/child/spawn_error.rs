//! Why a child could not start, from the OS error its spawn failed with: the native build's
//! tokio spawn and the WebAssembly host's (`host.rs`) say it the same way.

use crate::discovery::Launch;
use crate::errors::{os_text, CodegraphError, NotFoundReason, RequestReason, SpawnReason, Step};
use crate::resources::exhausted;

/// Why a child could not start, from the OS error its spawn failed with.
pub(super) fn spawn_error(launch: &Launch, e: &std::io::Error) -> CodegraphError {
  let executable = launch.executable.clone();
  // Out of descriptors (for the pipes), processes or memory: nothing is wrong with the program.
  if let Some(err) = exhausted(
    Step::Start {
      executable: executable.clone(),
    },
    e,
  ) {
    return err;
  }
  match e.kind() {
    std::io::ErrorKind::NotFound => CodegraphError::NotFound {
      reason: NotFoundReason::CannotExecute { executable },
    },
    // EACCES comes from exec (not executable) or from entering the workspace.
    std::io::ErrorKind::PermissionDenied => CodegraphError::Spawn {
      reason: SpawnReason::Permission { executable },
    },
    // Rust refuses batch-file arguments it cannot escape safely for cmd.exe.
    std::io::ErrorKind::InvalidInput => CodegraphError::InvalidRequest {
      reason: RequestReason::BatchUnsafe { executable },
    },
    _ => CodegraphError::Spawn {
      reason: SpawnReason::Other {
        executable,
        os: os_text(e),
      },
    },
  }
}
