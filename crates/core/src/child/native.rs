//! The native build's child: started with tokio as the leader of its own process group (Unix)
//! or in a job object (Windows), its tree kept in a guard that kills it on drop (`tree.rs`).

use std::process::Stdio;

use tokio::process::{ChildStderr, ChildStdout};

use super::tree::{spawn_tree, TreeGuard};
use super::{RunSpec, Started};
use crate::discovery::Launch;
use crate::errors::{os_text, CodegraphError, NotFoundReason, RequestReason, SpawnReason, Step};
use crate::resources::exhausted;

/// Starts `spec`'s CLI: argv as an array (never a shell), the environment exactly `spec.env`,
/// stdin /dev/null, stdout and stderr piped.
pub(super) fn start(
  spec: &RunSpec<'_>,
) -> Result<Started<ChildStdout, ChildStderr, TreeGuard>, CodegraphError> {
  let mut command = tokio::process::Command::new(&spec.launch.program);
  command
    .args(&spec.launch.prefix)
    .args(spec.args)
    .current_dir(spec.cwd)
    .env_clear()
    .envs(spec.env.iter().map(|(k, v)| (k, v)))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
  let child = spawn_tree(command).map_err(|e| spawn_error(spec.launch, &e))?;
  let mut guard = TreeGuard::new(child);
  let stdout = guard.0.stdout().take().expect("stdout is piped");
  let stderr = guard.0.stderr().take().expect("stderr is piped");
  Ok(Started {
    stdout,
    stderr,
    control: guard,
  })
}

fn spawn_error(launch: &Launch, e: &std::io::Error) -> CodegraphError {
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
